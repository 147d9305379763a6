/**
 * Builds test/fixtures/audio/segment-types-am.flac (and its .txt layout) for the segment-type
 * integration test: a male and a female espeak-ng voice (variants m7 and f4, which the
 * segment-type model was not fitted on) reading HornMT sentences in Amharic (held-out lines),
 * taking turns around 7 s of synthesised music (training/common/music-synth.ts, seed 90001, not a
 * fitting seed). Needs espeak-ng (Debian package) and the bundled ffmpeg; only used to (re)make
 * the fixture:
 *
 *   npx tsx scripts/make-segment-types-fixture.ts
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolveMediaTools } from '../src/platform/subprocess/media-tools.js';
import { joinWithPauses, speak } from '../training/common/segment-type-data.js';
import { floatToPcm16, wavOf } from '../test/helpers/fixtures.js';
import { synthesiseMusic } from '../training/common/music-synth.js';

const OUT = 'test/fixtures/audio/segment-types-am';
const lines = readFileSync('/work/shared/data/text/hornmt/amh.txt', 'utf8').split('\n');
const text = (n: number): string => lines[n]!.trim().split(' ').slice(0, 6).join(' ');

/** Scaled to an RMS of -20 dBFS. */
function level(pcm: Float32Array): Float32Array {
  const rms = Math.sqrt(pcm.reduce((s, v) => s + v * v, 0) / pcm.length);
  return pcm.map((v) => (v * 0.1) / rms);
}

const pieces = [
  { what: 'male (am+m7)', pcm: level(speak('am', 'm7', text(1950))), text: text(1950) },
  { what: 'female (am+f4)', pcm: level(speak('am', 'f4', text(1951))), text: text(1951) },
  { what: 'music (seed 90001)', pcm: level(synthesiseMusic(90_001, 7, ['melody', 'chords', 'bass', 'drums']).pcm), text: '' },
  { what: 'male (am+m7)', pcm: level(speak('am', 'm7', text(1952))), text: text(1952) },
  { what: 'female (am+f4)', pcm: level(speak('am', 'f4', text(1953))), text: text(1953) },
];
const { pcm, starts } = joinWithPauses(
  pieces.map((p) => p.pcm),
  0.6,
  1,
);
writeFileSync(`${OUT}.wav`, wavOf(floatToPcm16(pcm)));
const run = spawnSync(resolveMediaTools().ffmpeg, ['-v', 'error', '-y', '-i', `${OUT}.wav`, '-c:a', 'flac', `${OUT}.flac`]);
if (run.status !== 0) throw new Error(run.stderr.toString());
spawnSync('rm', [`${OUT}.wav`]);
const layout = pieces.map((p, i) => `${(starts[i]! / 16_000).toFixed(2)}\t${((starts[i]! + p.pcm.length) / 16_000).toFixed(2)}\t${p.what}\t${p.text}`);
writeFileSync(`${OUT}.txt`, `# start_s\tend_s\twhat\ttext (made by scripts/make-segment-types-fixture.ts)\n${layout.join('\n')}\n`);
console.log(layout.join('\n'));
