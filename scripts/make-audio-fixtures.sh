#!/usr/bin/env bash
# Builds the committed audio fixtures in test/fixtures/audio/ from espeak-ng speech.
# Needs espeak-ng, sox and ffmpeg (Debian packages); only used to (re)make fixtures, never at
# run time. Synthetic formant speech: good for format, pipeline and segmentation tests, no
# measure of accuracy on people.
#
#   speech-am.<fmt>   two Amharic sentences with a 0.8 s pause, in every supported container:
#                     wav (PCM s16), flac, mp3, m4a (AAC in MP4), ogg (Vorbis), webm (Opus), aac (ADTS)
#   speech-om.flac, speech-ti.flac   one sentence each (same HornMT sentence, parallel text)
#   corrupt.m4a       speech-am.m4a cut in half: container magic is right, the index (moov) is gone
#   corrupt.mp3       an ID3 tag followed by bytes that are no MPEG audio
#   not-audio.txt     plain text
#   *.txt next to the audio: the text that was synthesised
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=test/fixtures/audio
TI_DATA=${TI_DATA:-/work/shared/data/espeak-ng-data-ti}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

AM1='የኢትዮጵያ ብሔራዊ ባንክ አዲስ መመሪያ አወጣ።'
AM2='ዝናቡ ነገ በአዲስ አበባ ይቀጥላል።'
OM='Arkiyoolojistoonni Gibxii awwaalcha guddicha argatan.'
TI='ግብፃዊያን ተመራመርቲ ዝዓበየ መቓብር ረኺቦም።'

synth() { # voice text out.wav [extra env]
  espeak-ng -v "$1" -s 150 -w "$TMP/raw.wav" "$2"
  sox "$TMP/raw.wav" -r 16000 -c 1 -b 16 "$3" gain -n -3
}

synth am "$AM1" "$TMP/am1.wav"
synth am "$AM2" "$TMP/am2.wav"
sox -n -r 16000 -c 1 -b 16 "$TMP/pause.wav" trim 0 0.8
sox "$TMP/am1.wav" "$TMP/pause.wav" "$TMP/am2.wav" "$OUT/speech-am.wav"
printf '%s\n%s\n' "$AM1" "$AM2" > "$OUT/speech-am.txt"

FF=(ffmpeg -hide_banner -loglevel error -y -i "$OUT/speech-am.wav" -map_metadata -1 -fflags +bitexact)
"${FF[@]}" -c:a flac -compression_level 8 "$OUT/speech-am.flac"
"${FF[@]}" -c:a libmp3lame -b:a 32k "$OUT/speech-am.mp3"
"${FF[@]}" -c:a aac -b:a 32k -movflags +faststart "$OUT/speech-am.m4a"
"${FF[@]}" -c:a libvorbis -q:a 0 "$OUT/speech-am.ogg"
"${FF[@]}" -c:a libopus -b:a 24k "$OUT/speech-am.webm"
"${FF[@]}" -c:a aac -b:a 32k -f adts "$OUT/speech-am.aac"

synth om "$OM" "$TMP/om.wav"
ffmpeg -hide_banner -loglevel error -y -i "$TMP/om.wav" -map_metadata -1 -c:a flac "$OUT/speech-om.flac"
printf '%s\n' "$OM" > "$OUT/speech-om.txt"
ESPEAK_DATA_PATH="$TI_DATA" synth ti "$TI" "$TMP/ti.wav"
ffmpeg -hide_banner -loglevel error -y -i "$TMP/ti.wav" -map_metadata -1 -c:a flac "$OUT/speech-ti.flac"
printf '%s\n' "$TI" > "$OUT/speech-ti.txt"

# Corrupt inputs: right magic bytes, undecodable content.
ffmpeg -hide_banner -loglevel error -y -i "$OUT/speech-am.wav" -c:a aac -b:a 32k "$TMP/tail-moov.m4a"
head -c "$(( $(stat -c %s "$TMP/tail-moov.m4a") / 2 ))" "$TMP/tail-moov.m4a" > "$OUT/corrupt.m4a"
{ printf 'ID3\x03\x00\x00\x00\x00\x00\x00'; head -c 4096 /dev/zero | tr '\0' 'x'; } > "$OUT/corrupt.mp3"
printf 'This is a text file, not audio.\n' > "$OUT/not-audio.txt"

ls -l "$OUT"
du -cb "$OUT"/* | tail -1
