// Live turns keep the first word in the compressed formats too (issue 11): held-out clips trimmed
// to start in speech at sample 0, sent as WebM/Opus (ffmpeg, 48 kHz, split into 1,000-byte
// messages as MediaRecorder streams it) and as raw 16 kHz Opus (one 20 ms packet per message),
// with server_vad and either VAD. REST of the same encoded audio is the reference (the WebM file
// uploaded as is; the raw packets decoded by libopus, as WAV), so the turn path is under test and
// not the codec: the stream's text starts with REST's first word and no turn_detected is empty.
// An upload of the very WebM bytes that were streamed reads exactly as the stream (one decoder).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { alffaScoringForm } from '../../src/engines/asr/text/alffa-scoring.js';
import { speechOnset } from '../../bench/speech-onset.js';
import { floatToPcm16, wavOf } from '../helpers/fixtures.js';
import { decodeOpusFrames, opusFramesOf, webmOpusOf } from '../../bench/stream-encodings.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { bearer } from '../helpers/test-gateway.js';
import { readPcm16Wav } from '../native/audio-helpers.js';
import { restText } from './ws-audio.js';
import { chunks, connect, paced, wsUrl } from './ws-client.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const HELDOUT = new URL('../fixtures/heldout/', import.meta.url);
// One real recording (ALFFA, held-out speaker) and one synthetic sentence.
const CLIPS = ['alffa_spk_heldout-tr_10780_tr02103.wav', 'synth_am_test_clean-am-clean-00002.wav'];
// The six real recordings: ffmpeg's decode of the same WebM reads differently on some of them.
const UPLOAD_CLIPS = ['10778_tr02101', '10779_tr02102', '10780_tr02103', '10827_tr09101', '10828_tr09102', '10829_tr09103'].map(
  (id) => `alffa_spk_heldout-tr_${id}.wav`,
);

/** 16 kHz PCM of a committed clip, from its speech onset on. */
function trimmed(file: string): Buffer {
  const { samples } = readPcm16Wav(readFileSync(new URL(file, HELDOUT)));
  return floatToPcm16(samples.subarray(speechOnset(samples)));
}

// Raw Opus is one message per 20 ms, sent faster than real time.
const suite = useTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am', WS_MAX_MESSAGES_PER_SECOND: '100000' }, { scopes: ['write'] });

type Format = 'webm_opus' | 'opus_raw_16k';

/** The client's encoding of `pcm` in `format`: the messages it streams and the same audio as one upload. */
function encoded(pcm: Buffer, format: Format): { messages: Buffer[]; upload: { bytes: Buffer; name: string } } {
  if (format === 'webm_opus') {
    const webm = webmOpusOf(pcm);
    return { messages: chunks(webm, 1_000), upload: { bytes: webm, name: 'clip.webm' } };
  }
  const { frames } = opusFramesOf(pcm);
  return { messages: frames, upload: { bytes: wavOf(decodeOpusFrames(frames)), name: 'clip.wav' } };
}

async function live(messages: Buffer[], format: Format, vad: 'energy' | 'silero'): Promise<{ text: string; turns: Array<{ text: string; start_ms: number }> }> {
  const client = connect(wsUrl(suite.gw.url, { format, turn_detection: 'server_vad', vad_type: vad, language: 'am' }), bearer(suite.key));
  await client.waitFor('ready');
  await paced(client, messages, 0);
  client.send('END');
  const final = await client.waitFor('transcription', (m) => m.is_final, 60_000);
  expect((await client.closed).code).toBe(1000);
  expect(client.ofType('error')).toHaveLength(0);
  return { text: final.full_text as string, turns: client.ofType('turn_detected') as unknown as Array<{ text: string; start_ms: number }> };
}

const firstWord = (text: string): string => text.trim().split(/\s+/)[0] ?? '';

describe('live turns on Opus streams that start in speech at sample 0', () => {
  for (const format of ['webm_opus', 'opus_raw_16k'] as const) {
    it(`${format}: the first word is kept with either VAD, no empty turn_detected`, async () => {
      for (const clip of CLIPS) {
        const { messages, upload } = encoded(trimmed(clip), format);
        const reference = await restText(suite.gw.url, bearer(suite.key), Buffer.alloc(0), { file: upload });
        expect(firstWord(reference).length, clip).toBeGreaterThan(0);
        for (const vad of ['energy', 'silero'] as const) {
          const streamed = await live(messages, format, vad);
          const label = `${clip} ${vad}: ${JSON.stringify(streamed.turns.map((t) => [t.start_ms, t.text]))} / ${reference}`;
          expect(streamed.turns.length, label).toBeGreaterThan(0);
          // The first turn starts with the stream (the endpointer's onset, padded, clamped at 0).
          expect(streamed.turns[0]!.start_ms, label).toBe(0);
          for (const turn of streamed.turns) expect(turn.text, label).not.toBe('');
          expect(alffaScoringForm(streamed.text).startsWith(alffaScoringForm(firstWord(reference))), label).toBe(true);
        }
      }
    }, 180_000);
  }
});

describe('an upload of a streamed WebM/Opus file', () => {
  it('reads exactly as the live stream of the same bytes (manual turns, one native decoder)', async () => {
    for (const clip of UPLOAD_CLIPS) {
      const webm = webmOpusOf(trimmed(clip));
      const uploaded = await restText(suite.gw.url, bearer(suite.key), Buffer.alloc(0), { file: { bytes: webm, name: 'clip.webm' } });
      const client = connect(wsUrl(suite.gw.url, { format: 'webm_opus', language: 'am' }), bearer(suite.key));
      await client.waitFor('ready');
      await paced(client, chunks(webm, 1_000), 0);
      client.send('END');
      const final = await client.waitFor('transcription', (m) => m.is_final, 60_000);
      expect(uploaded.length, clip).toBeGreaterThan(0);
      expect(final.full_text, clip).toBe(uploaded);
    }
  }, 120_000);
});
