/**
 * Live accuracy: do live turns read as well as a file upload of the same audio (issue 11)?
 *
 * Streams real read speech (ALFFA Amharic, 20 utterances spread over the `alffa_val` split,
 * the 100 highest ids, which the shipped models did not train on) as 16 kHz PCM through the
 * WebSocket with turn detection (energy and Silero VAD) and without it (manual mode, END only),
 * each as recorded and trimmed so that speech starts at sample 0 (bench/speech-onset.ts), and
 * sends the same samples (as WAV) to REST. Prints the CER of each path (ALFFA scoring form:
 * homophones merged, spaces and punctuation removed; corpus level), the difference to REST on
 * the same audio, utterances whose first word REST keeps and the stream loses, and empty
 * `turn_detected` messages; writes bench/results/live-accuracy.json.
 *
 *   npm run bench:live-accuracy [-- --data ../shared/data --count 20]
 *
 * One in-process gateway with the shipped models (models/), one inference worker; audio is
 * streamed faster than real time in 100 ms messages (the VADs judge samples, not wall time),
 * one utterance at a time with its variants in parallel.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Gateway } from '../src/app/gateway.js';
import { loadConfig } from '../src/platform/config/config.js';
import { createLogger } from '../src/platform/logging/logger.js';
import { resolveMediaTools } from '../src/platform/subprocess/media-tools.js';
import { decodeToPcm } from '../src/speech/audio/pcm-decoder.js';
import { parseKaldiText } from '../src/speech/decoding/lm/lm-corpus.js';
import { editDistance, scoredCharacterErrorRate, scoringForm } from '../src/speech/text/character-error-rate.js';
import { floatToPcm16, wavOf } from '../test/helpers/fixtures.js';
import { speechFrames, speechOnset } from './speech-onset.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback;
};
const DATA = option('data', join(process.cwd(), '..', 'shared', 'data'));
const COUNT = Number(option('count', '20'));
const CHUNK_BYTES = 3_200; // 100 ms of 16 kHz 16-bit audio

type Vad = 'energy' | 'silero' | 'none';
type Cut = 'recorded' | 'trimmed';
const PATHS: ReadonlyArray<{ vad: Vad; cut: Cut }> = [
  { vad: 'none', cut: 'recorded' },
  { vad: 'energy', cut: 'recorded' },
  { vad: 'silero', cut: 'recorded' },
  { vad: 'none', cut: 'trimmed' },
  { vad: 'energy', cut: 'trimmed' },
  { vad: 'silero', cut: 'trimmed' },
];
const pathName = (p: { vad: Vad; cut: Cut }): string => `ws-${p.vad === 'none' ? 'no-turns' : p.vad}-${p.cut}`;

interface LiveResult {
  readonly text: string;
  readonly turns: number;
  readonly emptyTurns: number;
  readonly firstTurnStartMs: number | null;
  /** Each turn's letters (scoring form) and mean confidence. */
  readonly turnScores: ReadonlyArray<{ letters: number; confidence: number | null }>;
  /** Each turn's span, stream ms. */
  readonly turnSpans: ReadonlyArray<readonly [number, number]>;
}

/** One session: PCM in 100 ms messages as fast as the socket takes them, END, the final full_text. */
function stream(port: number, key: string, pcm: Buffer, vad: Vad): Promise<LiveResult> {
  const query = new URLSearchParams({ language: 'am', format: 'pcm_s16le' });
  if (vad !== 'none') {
    query.set('turn_detection', 'server_vad');
    query.set('vad_type', vad);
  }
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/ws/transcribe?${query}`, { headers: { authorization: `Bearer ${key}` } });
    let turns = 0;
    let emptyTurns = 0;
    let firstTurnStartMs: number | null = null;
    let final: string | null = null;
    const turnScores: Array<{ letters: number; confidence: number | null }> = [];
    const turnSpans: Array<readonly [number, number]> = [];
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      if (message['type'] === 'ready') {
        for (let at = 0; at < pcm.length; at += CHUNK_BYTES) socket.send(pcm.subarray(at, at + CHUNK_BYTES));
        socket.send('END');
      } else if (message['type'] === 'turn_detected') {
        turns++;
        if (message['text'] === '') emptyTurns++;
        firstTurnStartMs ??= message['start_ms'] as number;
        const segments = message['segments'] as Array<{ confidence: number | null }>;
        turnSpans.push([message['start_ms'] as number, message['end_ms'] as number]);
        turnScores.push({ letters: scoringForm(message['text'] as string, 'am').length, confidence: segments[0]?.confidence ?? null });
      } else if (message['type'] === 'transcription' && message['is_final'] === true) {
        final = message['full_text'] as string;
      } else if (message['type'] === 'error') {
        reject(new Error(`session error: ${JSON.stringify(message['error'])}`));
      }
    });
    socket.on('close', (code) => {
      if (final === null) reject(new Error(`closed ${code} without a final transcription`));
      else resolve({ text: final, turns, emptyTurns, firstTurnStartMs, turnScores, turnSpans });
    });
    socket.on('error', reject);
  });
}

async function rest(url: string, key: string, pcm: Buffer): Promise<string> {
  const form = new FormData();
  form.append('language', 'am');
  form.append('mode', 'sync');
  form.append('file', new Blob([wavOf(pcm)]), 'utterance.wav');
  const response = await fetch(`${url}/v1/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const body = (await response.json()) as { status?: string; text?: string };
  if (body.status !== 'completed') throw new Error(`REST answered ${response.status}: ${JSON.stringify(body)}`);
  return body.text ?? '';
}

/**
 * Whether `text` begins with the reference's first word: the first reference tokens (ALFFA
 * splits morphemes) joined until 4 letters, found with at most half of its letters wrong among
 * the first letters of the text (semi-global alignment: any start within that window). Half,
 * because this counts words missing, not misrecognised: a lost word leaves nearly every letter
 * wrong, a misread one a few.
 */
function keepsFirstWord(reference: string, text: string): boolean {
  const tokens = reference.trim().split(/\s+/);
  let word: string[] = [];
  for (const token of tokens) {
    word = [...word, ...scoringForm(token, 'am')];
    if (word.length >= 4) break;
  }
  const window = scoringForm(text, 'am').slice(0, word.length + 4);
  let best = Infinity;
  for (let start = 0; start <= Math.max(0, window.length - 1); start++) {
    for (let end = start; end <= window.length; end++) best = Math.min(best, editDistance(word, window.slice(start, end)));
  }
  return best <= Math.floor(word.length / 2);
}

async function readUtterances(): Promise<Array<{ id: string; reference: string; samples: Float32Array }>> {
  const folder = join(DATA, 'alffa-am-train');
  const texts = parseKaldiText(readFileSync(join(folder, 'text'), 'utf8'));
  const ids = [...texts.keys()].sort((a, b) => Number(a.split('_')[1]) - Number(b.split('_')[1]));
  const validation = ids.slice(-100);
  const step = validation.length / COUNT;
  const chosen = Array.from({ length: Math.min(COUNT, validation.length) }, (_, i) => validation[Math.floor(i * step)]!);
  const { ffmpeg } = resolveMediaTools();
  const out = [];
  for (const id of chosen) {
    const parts: Float32Array[] = [];
    for await (const chunk of decodeToPcm(join(folder, 'flac', `${id}.flac`), { ffmpegPath: ffmpeg })) parts.push(chunk);
    const samples = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      samples.set(part, at);
      at += part.length;
    }
    out.push({ id, reference: texts.get(id)!, samples });
  }
  return out;
}

const utterances = await readUtterances();
const dataDir = await mkdtemp(join(tmpdir(), 'live-accuracy-'));
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  MODELS_DIR: process.env['MODELS_DIR'] ?? join(process.cwd(), 'models'),
  INFERENCE_WORKERS: '1',
  WS_MAX_CONNECTIONS_PER_KEY: '1000',
  MAX_CONCURRENT_JOBS: '100',
  RATE_LIMIT_PER_MINUTE: '100000',
});
const gateway = await Gateway.start({ config, logger: createLogger('silent') });
const key = (await gateway.keys.create({ account: 'bench', scopes: ['write'] })).key;
const url = `http://127.0.0.1:${gateway.port}`;
const model = gateway.speech.models().find((m) => m.isDefault && m.language === 'am')?.name ?? 'unknown';

interface Row {
  id: string;
  reference: string;
  onsetMs: number;
  audioSeconds: number;
  /** 10 ms frames above the speech threshold (bench/speech-onset.ts), as recorded and trimmed. */
  speechFrames: Record<Cut, boolean[]>;
  rest: Record<Cut, string>;
  live: Record<string, LiveResult>;
}
const rows: Row[] = [];
const started = Date.now();
try {
  for (const [i, u] of utterances.entries()) {
    const onset = speechOnset(u.samples);
    const audio: Record<Cut, Buffer> = { recorded: floatToPcm16(u.samples), trimmed: floatToPcm16(u.samples.subarray(onset)) };
    const [restRecorded, restTrimmed, ...live] = await Promise.all([
      rest(url, key, audio.recorded),
      rest(url, key, audio.trimmed),
      ...PATHS.map((p) => stream(gateway.port, key, audio[p.cut], p.vad)),
    ]);
    rows.push({
      id: u.id,
      reference: u.reference,
      onsetMs: Math.round(onset / 16),
      speechFrames: { recorded: speechFrames(u.samples), trimmed: speechFrames(u.samples.subarray(onset)) },
      audioSeconds: u.samples.length / 16_000,
      rest: { recorded: restRecorded as string, trimmed: restTrimmed as string },
      live: Object.fromEntries(PATHS.map((p, k) => [pathName(p), live[k] as LiveResult])),
    });
    process.stdout.write(`\r${i + 1}/${utterances.length} utterances`);
  }
} finally {
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}
process.stdout.write('\n');

const references = rows.map((r) => r.reference);
const cer = (hypotheses: string[]): number => Math.round(scoredCharacterErrorRate(references, hypotheses, 'am').cer * 10_000) / 100;
const summary: Record<string, unknown> = {};
const restCer = { recorded: cer(rows.map((r) => r.rest.recorded)), trimmed: cer(rows.map((r) => r.rest.trimmed)) };
summary['rest-recorded'] = { cer: restCer.recorded, firstWordKept: rows.filter((r) => keepsFirstWord(r.reference, r.rest.recorded)).length };
summary['rest-trimmed'] = { cer: restCer.trimmed, firstWordKept: rows.filter((r) => keepsFirstWord(r.reference, r.rest.trimmed)).length };
console.log(
  `model ${model}, ${rows.length} utterances, ${Math.round(rows.reduce((s, r) => s + r.audioSeconds, 0))} s of audio, median onset ${[...rows.map((r) => r.onsetMs)].sort((a, b) => a - b)[Math.floor(rows.length / 2)]} ms`,
);
console.log(`REST recorded CER ${restCer.recorded}%   REST trimmed CER ${restCer.trimmed}%`);
for (const p of PATHS) {
  const name = pathName(p);
  const texts = rows.map((r) => r.live[name]!.text);
  const value = cer(texts);
  const firstWordLost = rows.filter((r) => keepsFirstWord(r.reference, r.rest[p.cut]) && !keepsFirstWord(r.reference, r.live[name]!.text)).map((r) => r.id);
  const sameAsRest = rows.filter((r) => scoringForm(r.live[name]!.text, 'am').join('') === scoringForm(r.rest[p.cut], 'am').join('')).length;
  const turns = rows.reduce((s, r) => s + r.live[name]!.turns, 0);
  // Speech outside every turn: 10 ms speech frames no turn_detected span covers (turn paths only).
  const speechOutsideMs =
    p.vad === 'none'
      ? null
      : rows.reduce((sum, r) => {
          const spans = r.live[name]!.turnSpans;
          return sum + r.speechFrames[p.cut].filter((speech, f) => speech && !spans.some(([a, b]) => f * 10 >= a && f * 10 + 10 <= b)).length * 10;
        }, 0);
  const speechMs = rows.reduce((sum, r) => sum + r.speechFrames[p.cut].filter(Boolean).length * 10, 0);
  const emptyTurns = rows.reduce((s, r) => s + r.live[name]!.emptyTurns, 0);
  summary[name] = {
    cer: value,
    minusRest: Math.round((value - restCer[p.cut]) * 100) / 100,
    firstWordLost: firstWordLost.length,
    firstWordLostIds: firstWordLost,
    textEqualsRest: sameAsRest,
    turns,
    emptyTurns,
    speechMs,
    speechOutsideTurnsMs: speechOutsideMs,
  };
  console.log(
    `${name.padEnd(24)} CER ${String(value).padStart(6)}%  (REST ${restCer[p.cut]}%, diff ${(value - restCer[p.cut]).toFixed(2)})  first word lost ${firstWordLost.length}/${rows.length}  text = REST ${sameAsRest}/${rows.length}  turns ${turns}  empty turn_detected ${emptyTurns}${speechOutsideMs === null ? '' : `  speech outside turns ${speechOutsideMs}/${speechMs} ms`}`,
  );
}

mkdirSync(join(process.cwd(), 'bench', 'results'), { recursive: true });
writeFileSync(
  join(process.cwd(), 'bench', 'results', 'live-accuracy.json'),
  `${JSON.stringify(
    {
      bench: 'live-accuracy',
      date: new Date().toISOString(),
      model,
      data: 'ALFFA Amharic alffa_val (100 highest ids of alffa-am-train), evenly spaced',
      utterances: rows.length,
      wallSeconds: Math.round((Date.now() - started) / 1000),
      summary,
      rows: rows.map(({ speechFrames: _frames, ...row }) => row),
    },
    null,
    2,
  )}\n`,
);
console.log('wrote bench/results/live-accuracy.json');
