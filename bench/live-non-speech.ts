/**
 * Live non-speech: how many letters does the WebSocket invent for audio without speech
 * (issue 28)? Streams synthetic non-speech clips (test/helpers/non-speech.ts: pink noise at
 * -45 and -30 dBFS, a 425 Hz dial tone, ringback, busy tone, DTMF, a chord melody; 20 s each
 * with 300 ms of digital silence before) through `GET /v1/ws/transcribe` on several paths:
 * turn_detection=server_vad with the energy VAD (with partial_results) and with Silero, manual
 * mode (END only), WebM/Opus and raw 16 kHz Opus with turns, and call-centre stereo (the clip
 * on the customer channel, quiet on the agent's). Each path runs on two in-process gateways,
 * LIVE_SPEECH_GATE=off (the behaviour before the gate: the baseline) and on, in the same run.
 * Prints per path and gate: invented letters per minute (the final `full_text`, ALFFA scoring
 * form), clips whose final text is empty, turn_detected messages with text, partials with text.
 * The speech side, in the same run: the 12 committed held-out ALFFA clips (test/fixtures/heldout,
 * speakers the model never heard) clean and in pink noise at 10 and 5 dB SNR of the active speech
 * level (the noise running 500 ms before and after), energy-VAD turns and manual mode: CER and clips that come
 * back empty, gate off and on. Writes bench/results/live-non-speech.json. Speech accuracy on more
 * utterances and formats: bench/live-accuracy.ts.
 *
 *   npm run bench:live-non-speech [-- --seconds 20]
 *
 * Shipped models (models/ or MODELS_DIR), one inference worker; audio faster than real time in
 * 100 ms messages (the VADs judge samples, not wall time), one clip at a time, paths in parallel.
 * The energy path is paced at 4 times real time (a message every 25 ms) so that partials run
 * (every WS_PARTIAL_INTERVAL_MS of wall time); the others go as fast as the socket takes them.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { scoredCharacterErrorRate, scoringForm } from '../src/engines/scoring/character-error-rate.js';
import { heldOutFixtures } from '../training/common/heldout-fixtures.js';
import { floatToPcm16, interleaveStereo, pcm16ToFloat, wavData } from '../test/helpers/fixtures.js';
import { type NonSpeechKind, nonSpeech } from '../test/helpers/non-speech.js';
import { mixAtSnr } from './speech-conditions.js';
import { opusFramesOf, webmOpusOf } from './stream-encodings.js';
import { startBenchGateway } from './bench-gateway.js';

const args = process.argv.slice(2);
const at = args.indexOf('--seconds');
const SECONDS = at >= 0 ? Number(args[at + 1]) : 20;

interface Clip {
  readonly name: string;
  readonly kind: NonSpeechKind;
  readonly dbfs?: number;
}
const CLIPS: readonly Clip[] = [
  { name: 'pink noise -45 dBFS', kind: 'pink_noise', dbfs: -45 },
  { name: 'pink noise -30 dBFS', kind: 'pink_noise', dbfs: -30 },
  { name: '425 Hz dial tone', kind: 'dial_tone' },
  { name: 'ringback', kind: 'ringback' },
  { name: 'busy tone', kind: 'busy' },
  { name: 'DTMF', kind: 'dtmf' },
  { name: 'chord melody', kind: 'chord_melody' },
];

type PathName = 'energy' | 'silero' | 'manual' | 'webm_opus' | 'opus_raw_16k' | 'stereo';
const PATHS: Record<PathName, { query: Record<string, string>; messages: (pcm: Buffer) => Buffer[]; paceMs?: number }> = {
  energy: { query: { turn_detection: 'server_vad', partial_results: 'true' }, messages: (pcm) => split(pcm, 3_200), paceMs: 25 },
  silero: { query: { turn_detection: 'server_vad', vad_type: 'silero', partial_results: 'true' }, messages: (pcm) => split(pcm, 3_200) },
  manual: { query: {}, messages: (pcm) => split(pcm, 3_200) },
  webm_opus: { query: { turn_detection: 'server_vad', format: 'webm_opus' }, messages: (pcm) => split(webmOpusOf(pcm), 1_000) },
  opus_raw_16k: { query: { format: 'opus_raw_16k' }, messages: (pcm) => opusFramesOf(pcm).frames },
  stereo: { query: { turn_detection: 'server_vad', channels: '2' }, messages: (pcm) => split(interleaveStereo(Buffer.alloc(pcm.length), pcm), 6_400) },
};

function split(bytes: Buffer, size: number): Buffer[] {
  return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

interface Outcome {
  readonly finalText: string;
  readonly turnsWithText: number;
  readonly partialsWithText: number;
  readonly speechStarted: number;
}

function stream(port: number, key: string, query: Record<string, string>, messages: readonly Buffer[], paceMs = 0): Promise<Outcome> {
  const params = new URLSearchParams({ language: 'am', ...query });
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/ws/transcribe?${params}`, { headers: { authorization: `Bearer ${key}` } });
    let finalText: string | null = null;
    let turnsWithText = 0;
    let partialsWithText = 0;
    let speechStarted = 0;
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      const type = message['type'];
      if (type === 'ready') void send(socket, messages, paceMs);
      else if (type === 'turn_detected' && message['text'] !== '') turnsWithText++;
      else if (type === 'partial' && message['text'] !== '') partialsWithText++;
      else if (type === 'speech_started') speechStarted++;
      else if (type === 'transcription' && message['is_final'] === true) finalText = message['full_text'] as string;
      else if (type === 'error') reject(new Error(`${params}: session error: ${JSON.stringify(message['error'])}`));
    });
    socket.on('close', (code) => {
      if (finalText === null) reject(new Error(`${params}: closed ${code} without a final transcription`));
      else resolve({ finalText, turnsWithText, partialsWithText, speechStarted });
    });
    socket.on('error', reject);
  });
}

async function send(socket: WebSocket, messages: readonly Buffer[], paceMs: number): Promise<void> {
  for (const m of messages) {
    socket.send(m);
    if (paceMs > 0) await new Promise((resolve) => setTimeout(resolve, paceMs));
  }
  socket.send('END');
}

async function withGateway<T>(gate: 'on' | 'off', run: (port: number, key: string) => Promise<T>): Promise<T> {
  const bench = await startBenchGateway('live-non-speech', { LIVE_SPEECH_GATE: gate });
  try {
    return await run(bench.gateway.port, bench.key);
  } finally {
    await bench.close();
  }
}

const audio = CLIPS.map((clip, i) =>
  Buffer.concat([
    Buffer.alloc(300 * 32),
    floatToPcm16(nonSpeech(clip.kind, SECONDS, { seed: i + 1, ...(clip.dbfs === undefined ? {} : { dbfs: clip.dbfs }) })),
  ]),
);
const minutes = audio.reduce((sum, pcm) => sum + pcm.length / 32_000 / 60, 0);
const names = Object.keys(PATHS) as PathName[];

/** The held-out ALFFA clips with their references. */
const speechClips = heldOutFixtures()
  .filter((row) => row.file.startsWith('alffa'))
  .map((row) => ({ file: row.file, reference: row.reference, samples: pcm16ToFloat(wavData(readFileSync(row.path)).pcm) }));
const SNRS = ['clean', 10, 5] as const;
/**
 * A clip with 500 ms of its own mean level before and after, in pink noise `snr` dB below its
 * active speech level (the robustness benchmark's definition: bench/speech-conditions.ts), or clean.
 */
function inNoise(samples: Float32Array, snr: (typeof SNRS)[number], seed: number): Buffer {
  const pad = 8_000;
  const mean = samples.reduce((sum, s) => sum + s, 0) / samples.length;
  const out = new Float32Array(samples.length + 2 * pad).fill(mean);
  out.set(samples, pad);
  if (snr === 'clean') return floatToPcm16(out);
  return floatToPcm16(mixAtSnr(out, nonSpeech('pink_noise', out.length / 16_000, { seed }), snr).samples);
}
const SPEECH_PATHS = ['energy', 'manual'] as const;

const results: Record<string, Record<PathName, Outcome[]>> = {};
const speechResults: Record<string, Record<string, string[]>> = {};
const started = Date.now();
for (const gate of ['off', 'on'] as const) {
  await withGateway(gate, async (port, key) => {
    const byPath = Object.fromEntries(names.map((name) => [name, [] as Outcome[]])) as Record<PathName, Outcome[]>;
    for (const [i, pcm] of audio.entries()) {
      const outcomes = await Promise.all(names.map((name) => stream(port, key, PATHS[name].query, PATHS[name].messages(pcm), PATHS[name].paceMs)));
      names.forEach((name, k) => byPath[name].push(outcomes[k]!));
      process.stdout.write(`\rLIVE_SPEECH_GATE=${gate}: ${i + 1}/${audio.length} clips`);
    }
    results[gate] = byPath;
    const texts: Record<string, string[]> = {};
    for (const snr of SNRS) {
      for (const path of SPEECH_PATHS) {
        const query: Record<string, string> = path === 'energy' ? { turn_detection: 'server_vad' } : {};
        texts[`${path}-${snr}`] = (
          await Promise.all(speechClips.map((clip, k) => stream(port, key, query, split(inNoise(clip.samples, snr, k + 1), 3_200))))
        ).map((o) => o.finalText);
      }
      process.stdout.write(`\rLIVE_SPEECH_GATE=${gate}: ${audio.length} clips, speech ${snr}   `);
    }
    speechResults[gate] = texts;
    process.stdout.write('\n');
  });
}

const letters = (text: string): number => scoringForm(text, 'am').length;
const summary: Record<string, unknown> = {};
console.log(`${CLIPS.length} clips of ${SECONDS} s (${minutes.toFixed(2)} min of non-speech per path): ${CLIPS.map((c) => c.name).join(', ')}`);
for (const name of names) {
  const row: Record<string, unknown> = {};
  const line: string[] = [];
  for (const gate of ['off', 'on'] as const) {
    const outcomes = results[gate]![name];
    const perClip = outcomes.map((o) => letters(o.finalText));
    const total = perClip.reduce((a, b) => a + b, 0);
    const figures = {
      lettersPerMinute: Math.round((total / minutes) * 10) / 10,
      emptyClips: perClip.filter((n) => n === 0).length,
      clips: perClip.length,
      turnsWithText: outcomes.reduce((s, o) => s + o.turnsWithText, 0),
      partialsWithText: outcomes.reduce((s, o) => s + o.partialsWithText, 0),
      speechStarted: outcomes.reduce((s, o) => s + o.speechStarted, 0),
      lettersPerClip: Object.fromEntries(CLIPS.map((c, k) => [c.name, perClip[k]])),
    };
    row[gate === 'off' ? 'gateOff' : 'gateOn'] = figures;
    line.push(
      `gate ${gate}: ${String(figures.lettersPerMinute).padStart(6)} letters/min, empty ${figures.emptyClips}/${figures.clips}, turns with text ${figures.turnsWithText}, partials with text ${figures.partialsWithText}`,
    );
  }
  summary[name] = row;
  console.log(`${name.padEnd(13)} ${line.join('   |   ')}`);
}
const references = speechClips.map((clip) => clip.reference);
const speechSummary: Record<string, unknown> = {};
console.log(`speech: ${speechClips.length} held-out ALFFA clips, clean and in pink noise (CER %, clips with empty text)`);
for (const snr of SNRS) {
  for (const path of SPEECH_PATHS) {
    const name = `${path}-${snr}`;
    const row: Record<string, unknown> = {};
    const line: string[] = [];
    for (const gate of ['off', 'on'] as const) {
      const texts = speechResults[gate]![name]!;
      const cer = Math.round(scoredCharacterErrorRate(references, texts, 'am').cer * 10_000) / 100;
      const empty = texts.filter((t) => t.trim() === '').length;
      row[gate === 'off' ? 'gateOff' : 'gateOn'] = { cer, empty, texts };
      line.push(`gate ${gate}: CER ${String(cer).padStart(6)}%, empty ${empty}/${texts.length}`);
    }
    speechSummary[name] = row;
    console.log(`${(snr === 'clean' ? 'clean' : `${snr} dB SNR`).padEnd(9)} ${path.padEnd(7)} ${line.join('   |   ')}`);
  }
}
mkdirSync(join(process.cwd(), 'bench', 'results'), { recursive: true });
writeFileSync(
  join(process.cwd(), 'bench', 'results', 'live-non-speech.json'),
  `${JSON.stringify({ bench: 'live-non-speech', date: new Date().toISOString(), secondsPerClip: SECONDS, clips: CLIPS, wallSeconds: Math.round((Date.now() - started) / 1000), summary, speech: speechSummary }, null, 2)}\n`,
);
console.log('wrote bench/results/live-non-speech.json');
