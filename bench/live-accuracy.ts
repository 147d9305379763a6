/**
 * Live accuracy: do live turns read as well as a file upload of the same audio (issue 11)?
 *
 * Streams real read speech (ALFFA Amharic, 20 utterances spread over the `alffa_val` split,
 * the 100 highest ids, which small-am-v1 did not train on; small-am-v2 holds out the speaker groups 021
 * and 091 that most of them come from) through the WebSocket as 16 kHz
 * PCM, as WebM/Opus (48 kHz, 32 kbit/s, 1,000-byte messages, as MediaRecorder streams it) and as
 * raw 16 kHz Opus (one 20 ms packet per message; bench/stream-encodings.ts), with turn detection
 * (energy and Silero VAD) and without it (manual mode, END only; not for raw Opus, whose turns are
 * always detected), each as recorded and trimmed so that speech starts at sample 0
 * (bench/speech-onset.ts), and sends the same PCM (as WAV) to REST; for the Opus formats also the
 * same encoded audio (the WebM file, uploaded as is; the raw frames decoded by libopus, as WAV), which tells the
 * codec's loss from the turn path's. Prints the CER of each path (ALFFA scoring form:
 * homophones merged, spaces and punctuation removed; corpus level), the difference to REST on
 * the same audio, utterances whose first word REST keeps and the stream loses, and empty
 * `turn_detected` messages; writes bench/results/live-accuracy.json.
 *
 *   npm run bench:live-accuracy [-- --data ../shared/data --count 20 --formats pcm,webm_opus,opus_raw_16k]
 *
 * One in-process gateway with the shipped models (models/), one inference worker; audio is
 * streamed faster than real time in 100 ms messages (the VADs judge samples, not wall time),
 * one utterance at a time with its variants in parallel.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { resolveMediaTools } from '../src/platform/subprocess/media-tools.js';
import { decodeToPcm } from '../src/engines/signal/files/pcm-decoder.js';
import { parseKaldiText } from '../src/engines/asr/decoding/lm/lm-corpus.js';
import { editDistance, scoredCharacterErrorRate, scoringForm } from '../src/engines/scoring/character-error-rate.js';
import { floatToPcm16, wavOf } from '../test/helpers/fixtures.js';
import { speechFrames, speechOnset } from './speech-onset.js';
import { decodeOpusFrames, opusFramesOf, STREAM_FORMATS, type StreamFormat, WEBM_OPUS_BITRATE, webmOpusOf } from './stream-encodings.js';
import { option } from './bench-args.js';
import { startBenchGateway } from './bench-gateway.js';

const DATA = option('data', join(process.cwd(), '..', 'shared', 'data'));
const COUNT = Number(option('count', '20'));
const FORMATS = option('formats', STREAM_FORMATS.join(','))
  .split(',')
  .map((f) => f.trim()) as StreamFormat[];
for (const f of FORMATS) if (!STREAM_FORMATS.includes(f)) throw new Error(`--formats: unknown format ${f} (${STREAM_FORMATS.join(', ')})`);
const CHUNK_BYTES = 3_200; // 100 ms of 16 kHz 16-bit audio
const WEBM_CHUNK_BYTES = 1_000; // about 250 ms of 32 kbit/s Opus: a MediaRecorder timeslice

type Vad = 'energy' | 'silero' | 'none';
type Cut = 'recorded' | 'trimmed';
interface Path {
  readonly format: StreamFormat;
  readonly vad: Vad;
  readonly cut: Cut;
}
const PATHS: readonly Path[] = FORMATS.flatMap((format) =>
  (['recorded', 'trimmed'] as const).flatMap((cut) =>
    (['none', 'energy', 'silero'] as const).filter((vad) => !(format === 'opus_raw_16k' && vad === 'none')).map((vad) => ({ format, vad, cut })),
  ),
);
/** PCM paths keep their names from before the other formats (ws-energy-recorded, ...). */
const pathName = (p: Path): string => `ws-${p.format === 'pcm' ? '' : `${p.format}-`}${p.vad === 'none' ? 'no-turns' : p.vad}-${p.cut}`;
const QUERY_FORMAT: Record<StreamFormat, string> = { pcm: 'pcm_s16le', webm_opus: 'webm_opus', opus_raw_16k: 'opus_raw_16k' };

/** The messages that carry `pcm` in `format`. */
function messagesOf(pcm: Buffer, format: StreamFormat): Buffer[] {
  const split = (bytes: Buffer, size: number): Buffer[] =>
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
  if (format === 'pcm') return split(pcm, CHUNK_BYTES);
  if (format === 'webm_opus') return split(webmOpusOf(pcm), WEBM_CHUNK_BYTES);
  return opusFramesOf(pcm).frames;
}

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

/** One session: the audio messages as fast as the socket takes them, END, the final full_text. */
function stream(port: number, key: string, messages: readonly Buffer[], format: StreamFormat, vad: Vad): Promise<LiveResult> {
  const query = new URLSearchParams({ language: 'am', format: QUERY_FORMAT[format] });
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
        for (const message of messages) socket.send(message);
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

async function rest(url: string, key: string, file: Buffer, name = 'utterance.wav'): Promise<string> {
  const form = new FormData();
  form.append('language', 'am');
  form.append('mode', 'sync');
  form.append('file', new Blob([file]), name);
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
// Up to 16 sessions per utterance, all faster than real time (UNLIMITED_LIVE lifts the limits).
const bench = await startBenchGateway('live-accuracy', { MAX_CONCURRENT_JOBS: '100', RATE_LIMIT_PER_MINUTE: '100000' });
const { gateway, key } = bench;
const url = `http://127.0.0.1:${gateway.port}`;
const model = gateway.engines.asr.models().find((m) => m.isDefault && m.language === 'am')?.name ?? 'unknown';

interface Row {
  id: string;
  reference: string;
  onsetMs: number;
  audioSeconds: number;
  /** 10 ms frames above the speech threshold (bench/speech-onset.ts), as recorded and trimmed. */
  speechFrames: Record<Cut, boolean[]>;
  rest: Record<Cut, string>;
  /** REST of the encoded audio the stream got, per `${format}-${cut}` (Opus formats). */
  restEncoded: Record<string, string>;
  live: Record<string, LiveResult>;
}
const rows: Row[] = [];
const started = Date.now();
try {
  for (const [i, u] of utterances.entries()) {
    const onset = speechOnset(u.samples);
    const audio: Record<Cut, Buffer> = { recorded: floatToPcm16(u.samples), trimmed: floatToPcm16(u.samples.subarray(onset)) };
    const messages = new Map<string, Buffer[]>();
    for (const format of FORMATS) for (const cut of ['recorded', 'trimmed'] as const) messages.set(`${format}-${cut}`, messagesOf(audio[cut], format));
    const [restRecorded, restTrimmed, ...live] = await Promise.all([
      rest(url, key, wavOf(audio.recorded)),
      rest(url, key, wavOf(audio.trimmed)),
      ...PATHS.map((p) => stream(gateway.port, key, messages.get(`${p.format}-${p.cut}`)!, p.format, p.vad)),
    ]);
    // REST of the same encoded audio, for the Opus formats.
    const encoded = FORMATS.filter((f) => f !== 'pcm').flatMap((format) => (['recorded', 'trimmed'] as const).map((cut) => `${format}-${cut}`));
    const restEncoded = await Promise.all(
      encoded.map((name) => {
        const sent = messages.get(name)!;
        return name.startsWith('webm_opus') ? rest(url, key, Buffer.concat(sent), 'utterance.webm') : rest(url, key, wavOf(decodeOpusFrames(sent)));
      }),
    );
    rows.push({
      id: u.id,
      reference: u.reference,
      onsetMs: Math.round(onset / 16),
      speechFrames: { recorded: speechFrames(u.samples), trimmed: speechFrames(u.samples.subarray(onset)) },
      audioSeconds: u.samples.length / 16_000,
      rest: { recorded: restRecorded as string, trimmed: restTrimmed as string },
      restEncoded: Object.fromEntries(encoded.map((name, k) => [name, restEncoded[k]!])),
      live: Object.fromEntries(PATHS.map((p, k) => [pathName(p), live[k] as LiveResult])),
    });
    process.stdout.write(`\r${i + 1}/${utterances.length} utterances`);
  }
} finally {
  await bench.close();
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
const restEncodedCer = new Map<string, number>();
for (const name of Object.keys(rows[0]?.restEncoded ?? {})) {
  const cut = name.endsWith('recorded') ? 'recorded' : 'trimmed';
  const value = cer(rows.map((r) => r.restEncoded[name]!));
  restEncodedCer.set(name, value);
  const firstWordLost = rows.filter((r) => keepsFirstWord(r.reference, r.rest[cut]) && !keepsFirstWord(r.reference, r.restEncoded[name]!)).length;
  summary[`rest-${name}`] = { cer: value, minusRest: Math.round((value - restCer[cut]) * 100) / 100, firstWordLost };
  console.log(
    `REST of the ${name.padEnd(22)} CER ${value}% (diff to REST of the PCM ${(value - restCer[cut]).toFixed(2)})  first word lost ${firstWordLost}/${rows.length}`,
  );
}
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
  // Against REST of the same encoded audio: the turn path's own loss, without the codec's.
  const sameEncoding = `${p.format}-${p.cut}`;
  const encodedCer = restEncodedCer.get(sameEncoding);
  const firstWordLostVsEncoded =
    encodedCer === undefined
      ? null
      : rows.filter((r) => keepsFirstWord(r.reference, r.restEncoded[sameEncoding]!) && !keepsFirstWord(r.reference, r.live[name]!.text)).length;
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
    ...(encodedCer === undefined
      ? {}
      : {
          restSameEncodingCer: encodedCer,
          minusRestSameEncoding: Math.round((value - encodedCer) * 100) / 100,
          firstWordLostVsSameEncoding: firstWordLostVsEncoded,
        }),
  };
  console.log(
    `${name.padEnd(37)} CER ${String(value).padStart(6)}%  (REST ${restCer[p.cut]}%, diff ${(value - restCer[p.cut]).toFixed(2)})  first word lost ${firstWordLost.length}/${rows.length}  text = REST ${sameAsRest}/${rows.length}  turns ${turns}  empty turn_detected ${emptyTurns}${speechOutsideMs === null ? '' : `  speech outside turns ${speechOutsideMs}/${speechMs} ms`}${encodedCer === undefined ? '' : `  vs REST of the same ${p.format}: diff ${(value - encodedCer).toFixed(2)}, first word lost ${firstWordLostVsEncoded}`}`,
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
      formats: FORMATS,
      encodings: {
        pcm: `16 kHz s16le, ${CHUNK_BYTES}-byte messages`,
        webm_opus: `ffmpeg libopus 48 kHz ${WEBM_OPUS_BITRATE}bit/s WebM to a pipe, ${WEBM_CHUNK_BYTES}-byte messages`,
        opus_raw_16k: `@discordjs/opus 16 kHz mono at its default ${opusFramesOf(Buffer.alloc(640)).bitrate} bit/s, one 20 ms packet per message`,
      },
      wallSeconds: Math.round((Date.now() - started) / 1000),
      summary,
      rows: rows.map(({ speechFrames: _frames, ...row }) => row),
    },
    null,
    2,
  )}\n`,
);
console.log('wrote bench/results/live-accuracy.json');
