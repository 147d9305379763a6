/**
 * Robustness benchmark (issue 28): say nothing rather than something false. Two in-process
 * gateways with the shipped models, one after the other in the same run: "today" with
 * FILE_SPEECH_GATE=off, LIVE_SPEECH_GATE=off and TRANSLATION_DECODING_GUARDS=off, and "gated" with
 * the defaults. On the corpus of bench/robustness-corpus.ts it measures, side by side:
 * - non-speech: invented letters per minute of audio (ALFFA scoring form: no spaces or
 *   punctuation) and the share of clips that come back empty, per kind and overall, on
 *   REST (`POST /v1/transcriptions`, `language=am`, `mode=sync`) and on the WebSocket
 *   (`turn_detection=server_vad`, `partial_results=true`): every letter a client was shown counts,
 *   a turn by the most of its committed text (`turn_detected` or its automatic `transcription`)
 *   and its longest `partial`, plus the text of the final `transcription`. Targets: at most 1
 *   letter a minute and at least 95% of clips empty;
 * - speech (held-out ALFFA speakers): corpus CER per condition and surface (scored as
 *   bench/live-accuracy.ts: homophones merged, spaces and punctuation removed) beside the empty
 *   transcript (CER 100% by construction, computed the same way), and utterances that come back
 *   empty, those at 10 dB SNR or better (every condition but 5 dB SNR) separately (target 0);
 * - translation: degenerate outputs (src/engines/scoring/degenerate-output.ts: a letter 5 times in
 *   a row, an n-gram 3 times in a row, or over 3 times the source's length) on the held-out HornMT
 *   sentences of all six directions (bench/hornmt-heldout.ts), greedy through `POST /translate/v1`
 *   and beam through the engine as file jobs call it, beside two baselines from the same
 *   sentences: the source copied as output and the reference translation; chrF beside the
 *   source-copied chrF. Target: 0 degenerate.
 * Writes bench/results/robustness.json.
 *
 *   npm run bench:robustness-corpus          # once: writes bench/data/robustness/
 *   npm run bench:robustness [-- --minutes 2 --clip-seconds 5 --count 3 --sentences 10]
 *
 * Options: --corpus DIR; --minutes M (non-speech audio, clips taken round-robin over kinds,
 * shortest first); --clip-seconds S (cut every non-speech clip to S s); --count N (utterances;
 * the corpus lists them spread over speaker groups); --conditions a,b; --sentences N (per
 * direction, evenly spaced over the 300 test lines; default 50, as many as the model's committed
 * heldout/ files: on 2 shared cores 120 sentences took about 5.5 min per run, greedy and beam,
 * so all 300 a direction take hours); --data DIR (../shared/data, for HornMT); --runs today,gated;
 * --surfaces rest,ws; --ws-speed X (audio sent at X times real time, default 4; 0: as fast as the
 * socket takes it; partials are due every 500/X ms of wall time, at least 100, so about every
 * 500 ms of audio); --ws-vad energy|silero (default: the server's default); --concurrency C (4);
 * --language om|ti (with --count 0 --sentences 0): the non-speech clips through that language's
 * default model instead of Amharic's.
 *
 * The three keys are set for "today" whether or not this tree's configuration knows them yet
 * (unknown variables are ignored); the report says which are known, so a run made before a gate
 * lands shows "today" and "gated" running the same code for it.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONFIG_TABLE } from '../src/platform/config/config-table.js';
import { corpusChrf, countDegenerate, type DegeneracyCounts, scoredCharacterErrorRate } from '../src/engines/scoring/scoring.js';
import type { TranslationLanguage } from '../src/engines/translation/translation.js';
import { REPO_ROOT, wavData } from '../test/helpers/fixtures.js';
import { startTestGateway } from '../test/helpers/test-gateway.js';
import { round2, writeBenchResults } from './bench-results.js';
import { DIRECTIONS, type HeldoutSentence, hornmtHeldout } from './hornmt-heldout.js';
import type { NonSpeechEntry, RobustnessManifest, SpeechEntry } from './robustness-plan.js';
import { option } from './bench-args.js';
import {
  type BenchLanguage,
  type Clip,
  capacity,
  letters,
  pool,
  type RestAnswer,
  rest,
  translateGreedy,
  type WsAnswer,
  type WsPacing,
  wsSession,
} from './robustness-clients.js';

const list = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
const CORPUS = resolve(option('corpus', join(REPO_ROOT, 'bench', 'data', 'robustness')));
const DATA = resolve(option('data', join(REPO_ROOT, '..', 'shared', 'data')));
const MINUTES = Number(option('minutes', 'Infinity'));
const CLIP_SECONDS = Number(option('clip-seconds', 'Infinity'));
const COUNT = Number(option('count', 'Infinity'));
const CONDITIONS = option('conditions', '');
const SENTENCES = Number(option('sentences', '50'));
const RUNS = list(option('runs', 'today,gated')) as RunName[];
const SURFACES = list(option('surfaces', 'rest,ws')) as Surface[];
const WS_SPEED = Number(option('ws-speed', '4'));
const WS_VAD = option('ws-vad', '');
const PACING: WsPacing = { speed: WS_SPEED, vad: WS_VAD };
const CONCURRENCY = Number(option('concurrency', '4'));
/** --language om|ti: the non-speech clips only, through that language's default model (the speech and translation parts are Amharic's). */
const LANGUAGE = option('language', 'am') as BenchLanguage;
if (!['am', 'om', 'ti'].includes(LANGUAGE)) throw new Error('--language is am, om or ti');
if (LANGUAGE !== 'am' && (COUNT !== 0 || SENTENCES !== 0)) throw new Error(`--language ${LANGUAGE} measures non-speech only: add --count 0 --sentences 0`);

type RunName = 'today' | 'gated';
type Surface = 'rest' | 'ws';
const GATE_KEYS = ['FILE_SPEECH_GATE', 'LIVE_SPEECH_GATE', 'TRANSLATION_DECODING_GUARDS'] as const;
const RUN_ENV: Record<RunName, Record<string, string>> = {
  today: { FILE_SPEECH_GATE: 'off', LIVE_SPEECH_GATE: 'off', TRANSLATION_DECODING_GUARDS: 'off' },
  gated: {},
};
for (const run of RUNS) if (!(run in RUN_ENV)) throw new Error(`--runs: unknown run ${run} (today, gated)`);
for (const s of SURFACES) if (s !== 'rest' && s !== 'ws') throw new Error(`--surfaces: unknown surface ${s} (rest, ws)`);

// ---- the corpus ----------------------------------------------------------------------------

let manifest: RobustnessManifest;
try {
  manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as RobustnessManifest;
} catch (error) {
  throw new Error(`no corpus at ${CORPUS} (${(error as Error).message}); write it first: npm run bench:robustness-corpus`);
}

function readClip(file: string, maxSeconds = Infinity): Clip {
  const { rate, pcm } = wavData(readFileSync(join(CORPUS, file)));
  const cut = pcm.subarray(0, Math.min(pcm.length, Number.isFinite(maxSeconds) ? Math.round(maxSeconds * rate) * 2 : pcm.length));
  return { file, rate, pcm: cut, seconds: cut.length / 2 / rate };
}

/** Non-speech clips: each kind's clips shortest first, the kinds in turn, until --minutes. */
function chooseNonSpeech(entries: readonly NonSpeechEntry[]): Array<{ entry: NonSpeechEntry; clip: Clip }> {
  const byKind = new Map<string, NonSpeechEntry[]>();
  for (const e of entries) byKind.set(e.kind, [...(byKind.get(e.kind) ?? []), e]);
  for (const clips of byKind.values()) clips.sort((a, b) => a.seconds - b.seconds);
  const out: Array<{ entry: NonSpeechEntry; clip: Clip }> = [];
  let seconds = 0;
  for (let i = 0; seconds < MINUTES * 60 && [...byKind.values()].some((c) => i < c.length); i++) {
    for (const clips of byKind.values()) {
      if (i >= clips.length || seconds >= MINUTES * 60) continue;
      const clip = readClip(clips[i]!.file, CLIP_SECONDS);
      out.push({ entry: clips[i]!, clip });
      seconds += clip.seconds;
    }
  }
  return out;
}

const nonSpeech = chooseNonSpeech(manifest.nonSpeech);
const utterances = [...new Set(manifest.speech.map((s) => s.utterance))].slice(0, Number.isFinite(COUNT) ? COUNT : undefined);
const conditions = CONDITIONS === '' ? [...new Set(manifest.speech.map((s) => s.condition))] : list(CONDITIONS);
const speech = manifest.speech.filter((s) => utterances.includes(s.utterance) && conditions.includes(s.condition));
const heldout = hornmtHeldout(DATA);
const sentences: Record<string, HeldoutSentence[]> = Object.fromEntries(
  Object.entries(heldout).map(([direction, rows]) => {
    const n = Math.min(rows.length, SENTENCES);
    return [direction, Array.from({ length: n }, (_, i) => rows[Math.floor((i * rows.length) / n)]!)];
  }),
);

// ---- one run --------------------------------------------------------------------------------

interface NonSpeechRow {
  readonly file: string;
  readonly kind: string;
  readonly seconds: number;
  readonly rest?: RestAnswer;
  readonly ws?: WsAnswer;
}
interface SpeechRow {
  readonly file: string;
  readonly utterance: string;
  readonly condition: string;
  readonly reference: string;
  readonly rest?: string;
  readonly ws?: string;
}
interface RunResult {
  readonly model: string;
  readonly translationModel: string | null;
  readonly nonSpeech: NonSpeechRow[];
  readonly speech: SpeechRow[];
  /** Per direction and mode, the outputs in sentence order. */
  readonly translations: Record<string, { greedy: string[]; beam: string[] }>;
  readonly seconds: number;
  /** Wall seconds of each part (the gateway's start counts to the first). */
  readonly phases: Record<string, number>;
}

async function measure(run: RunName): Promise<RunResult> {
  const started = Date.now();
  const phases: Record<string, number> = {};
  const gateway = await startTestGateway(
    {
      MODELS_DIR: process.env['MODELS_DIR'] ?? join(REPO_ROOT, 'models'),
      INFERENCE_WORKERS: '1',
      RATE_LIMIT_PER_MINUTE: '1000000',
      DAILY_AUDIO_MINUTES: '10000000',
      MAX_CONCURRENT_JOBS: '100',
      WS_MAX_CONNECTIONS_PER_KEY: '1000',
      WS_MAX_MESSAGES_PER_SECOND: '1000000',
      WS_MAX_BYTES_PER_SECOND: '1000000000',
      WS_MAX_AUDIO_SPEED: '0',
      WS_PARTIAL_INTERVAL_MS: String(WS_SPEED > 0 ? Math.max(100, Math.round(500 / WS_SPEED)) : 500),
      // Sessions faster than real time, several at once: the capacity guard would shed partials
      // and refuse sessions (a capacity matter, not a robustness one); refusals left are retried.
      OVERLOAD_PARTIALS_OFF_AT: '10',
      OVERLOAD_LARGER_BATCHES_AT: '10',
      OVERLOAD_FULL_AT: '10',
      OVERLOAD_MAX_INFERENCE_WAIT_MS: '600000',
      ...RUN_ENV[run],
    },
    { validateResponses: false, account: 'bench', dataDirPrefix: `bench-robustness-${run}-` },
  );
  try {
    const key = await gateway.key({ limits: { requestsPerMinute: 1_000_000_000 } });
    const port = gateway.gateway.port;
    const model = gateway.gateway.engines.asr.models().find((m) => m.isDefault && m.language === LANGUAGE)?.name ?? 'unknown';
    // Progress on one rewritten line in a terminal; one line per phase in a log.
    const progress = (what: string, done: number, total: number): void => {
      if (process.stdout.isTTY) process.stdout.write(`\r[${run}] ${what} ${done}/${total}   `);
      else if (done === total) process.stdout.write(`[${run}] ${what} ${done}/${total}`);
    };
    let done = 0;
    const nonSpeechRows = await pool(nonSpeech, CONCURRENCY, async ({ entry, clip }) => {
      const [restAnswer, wsAnswer] = await Promise.all([
        SURFACES.includes('rest') ? rest(gateway.url, key, clip, LANGUAGE) : undefined,
        SURFACES.includes('ws') ? wsSession(port, key, clip, PACING, LANGUAGE) : undefined,
      ]);
      progress('non-speech clips', ++done, nonSpeech.length);
      return { file: entry.file, kind: entry.kind, seconds: clip.seconds, ...(restAnswer ? { rest: restAnswer } : {}), ...(wsAnswer ? { ws: wsAnswer } : {}) };
    });
    process.stdout.write('\n');
    phases['nonSpeech'] = Math.round((Date.now() - started) / 1000);
    done = 0;
    const speechRows = await pool(speech, CONCURRENCY, async (entry: SpeechEntry) => {
      const clip = readClip(entry.file);
      const [restAnswer, wsAnswer] = await Promise.all([
        SURFACES.includes('rest') ? rest(gateway.url, key, clip) : undefined,
        SURFACES.includes('ws') ? wsSession(port, key, clip, PACING) : undefined,
      ]);
      progress('speech files', ++done, speech.length);
      return {
        file: entry.file,
        utterance: entry.utterance,
        condition: entry.condition,
        reference: entry.reference,
        ...(restAnswer ? { rest: restAnswer.text } : {}),
        ...(wsAnswer ? { ws: wsAnswer.text } : {}),
      };
    });
    process.stdout.write('\n');
    phases['speech'] = Math.round((Date.now() - started) / 1000) - phases['nonSpeech']!;
    const engine = gateway.gateway.backends.translation;
    const translations: Record<string, { greedy: string[]; beam: string[] }> = {};
    if (engine !== null) {
      for (const [source, target] of DIRECTIONS) {
        const direction = `${source}-${target}`;
        const rows = sentences[direction]!;
        const greedy = await pool(rows, CONCURRENCY * 2, (row) => translateGreedy(gateway.url, key, row.source, source, target));
        const beam = await engine.translateMany(
          rows.map((r) => r.source),
          source as TranslationLanguage,
          target as TranslationLanguage,
          { mode: 'beam' },
        );
        translations[direction] = { greedy, beam };
        progress(`translation ${direction}`, 1, 1);
        if (!process.stdout.isTTY) process.stdout.write('\n');
      }
      process.stdout.write('\n');
    }
    const translationModel = engine === null ? null : engine.name;
    const seconds = Math.round((Date.now() - started) / 1000);
    phases['translation'] = seconds - phases['nonSpeech']! - phases['speech']!;
    return { model, translationModel, nonSpeech: nonSpeechRows, speech: speechRows, translations, seconds, phases };
  } finally {
    await gateway.close();
  }
}

// ---- figures --------------------------------------------------------------------------------

const pct = (a: number, b: number): number => (b === 0 ? 0 : round2((100 * a) / b));

interface NonSpeechFigures {
  readonly clips: number;
  readonly seconds: number;
  readonly lettersPerMinute: number;
  readonly emptyPercent: number;
  readonly letters: number;
}
function nonSpeechFigures(rows: readonly NonSpeechRow[], surface: Surface): NonSpeechFigures {
  const answered = rows.filter((r) => r[surface] !== undefined);
  const seconds = answered.reduce((s, r) => s + r.seconds, 0);
  const total = answered.reduce((s, r) => s + r[surface]!.letters, 0);
  return {
    clips: answered.length,
    seconds: round2(seconds),
    letters: total,
    lettersPerMinute: seconds === 0 ? 0 : round2(total / (seconds / 60)),
    emptyPercent: pct(answered.filter((r) => r[surface]!.letters === 0).length, answered.length),
  };
}

interface SpeechFigures {
  readonly utterances: number;
  readonly cer: number;
  readonly emptyBaselineCer: number;
  readonly empty: number;
}
function speechFigures(rows: readonly SpeechRow[], surface: Surface): SpeechFigures {
  const answered = rows.filter((r) => r[surface] !== undefined);
  const references = answered.map((r) => r.reference);
  const cer = (hypotheses: string[]): number => round2(scoredCharacterErrorRate(references, hypotheses, 'am').cer * 100);
  return {
    utterances: answered.length,
    cer: answered.length === 0 ? 0 : cer(answered.map((r) => r[surface]!)),
    emptyBaselineCer: answered.length === 0 ? 0 : cer(answered.map(() => '')),
    empty: answered.filter((r) => letters(r[surface]!) === 0).length,
  };
}

/** Every condition but 5 dB SNR is at 10 dB SNR or better. */
const atLeast10dB = (condition: string): boolean => !/snr5$/.test(condition);

const results: Partial<Record<RunName, RunResult>> = {};
const knownKeys = Object.fromEntries(GATE_KEYS.map((k) => [k, k in CONFIG_TABLE]));
console.log(
  `corpus ${CORPUS}: ${nonSpeech.length} non-speech clips (${round2(nonSpeech.reduce((s, c) => s + c.clip.seconds, 0) / 60)} min, ${new Set(nonSpeech.map((c) => c.entry.kind)).size} kinds), ${speech.length} speech files (${utterances.length} utterances x ${conditions.length} conditions), ${Object.values(sentences).reduce((s, r) => s + r.length, 0)} held-out sentences`,
);
for (const k of GATE_KEYS)
  if (!knownKeys[k]) console.log(`note: ${k} is not a configuration key in this tree yet: "today" and "gated" run the same code for it`);
for (const run of RUNS) results[run] = await measure(run);

const runs = RUNS.filter((r) => results[r] !== undefined);
const kinds = [...new Set(nonSpeech.map((c) => c.entry.kind))];
const summary: Record<string, unknown> = {};

const cell = (f: NonSpeechFigures): string => `${String(f.lettersPerMinute).padStart(7)} ${String(f.emptyPercent).padStart(6)}%`;
const header = (label: string): string =>
  `${label.padEnd(16)}${'sec'.padStart(7)}  ${SURFACES.flatMap((s) => runs.map((r) => `${`${s} ${r}`.padEnd(16)}`)).join('')}`;
console.log('\nNON-SPEECH: invented letters per minute and % of clips empty (targets: <= 1 letter/min, >= 95% empty)');
console.log(header('kind'));
const nonSpeechSummary: Record<string, Record<string, NonSpeechFigures>> = {};
for (const kind of [...kinds, 'ALL']) {
  const cells: string[] = [];
  let seconds = 0;
  for (const surface of SURFACES) {
    for (const run of runs) {
      const rows = results[run]!.nonSpeech.filter((r) => kind === 'ALL' || r.kind === kind);
      const figures = nonSpeechFigures(rows, surface);
      seconds = figures.seconds;
      (nonSpeechSummary[kind] ??= {})[`${surface}-${run}`] = figures;
      cells.push(cell(figures).padEnd(16));
    }
  }
  console.log(`${kind.padEnd(16)}${String(Math.round(seconds)).padStart(7)}  ${cells.join('')}`);
}
summary['nonSpeech'] = nonSpeechSummary;

console.log('\nSPEECH: corpus CER % (empty transcripts) per condition; the empty-transcript baseline is CER 100%');
console.log(`${'condition'.padEnd(22)}${SURFACES.flatMap((s) => runs.map((r) => `${`${s} ${r}`.padEnd(18)}`)).join('')}baseline`);
const speechSummary: Record<string, Record<string, SpeechFigures>> = {};
for (const condition of conditions) {
  const cells: string[] = [];
  let baseline = 0;
  for (const surface of SURFACES) {
    for (const run of runs) {
      const figures = speechFigures(
        results[run]!.speech.filter((r) => r.condition === condition),
        surface,
      );
      baseline = figures.emptyBaselineCer;
      (speechSummary[condition] ??= {})[`${surface}-${run}`] = figures;
      cells.push(`${String(figures.cer).padStart(7)} (${figures.empty})`.padEnd(18));
    }
  }
  console.log(`${condition.padEnd(22)}${cells.join('')}${baseline}`);
}
const emptyAt10 = Object.fromEntries(
  SURFACES.flatMap((surface) =>
    runs.map((run) => [
      `${surface}-${run}`,
      results[run]!.speech.filter((r) => atLeast10dB(r.condition) && r[surface] !== undefined && letters(r[surface]!) === 0).map((r) => r.file),
    ]),
  ),
);
console.log(
  `empty at 10 dB SNR or better (target 0): ${Object.entries(emptyAt10)
    .map(([k, v]) => `${k} ${v.length}`)
    .join(', ')}`,
);
if (runs.includes('today') && runs.includes('gated') && conditions.includes('clean')) {
  for (const surface of SURFACES) {
    const t = speechSummary['clean']?.[`${surface}-today`];
    const g = speechSummary['clean']?.[`${surface}-gated`];
    if (t && g) console.log(`clean CER ${surface}: today ${t.cer}%, gated ${g.cer}% (gated - today ${round2(g.cer - t.cer)}; target <= 0)`);
  }
}
summary['speech'] = speechSummary;
summary['emptyAt10dBOrBetter'] = emptyAt10;

const translationSummary: Record<string, unknown> = {};
const anyTranslations = runs.some((r) => Object.keys(results[r]!.translations).length > 0);
if (anyTranslations) {
  console.log('\nTRANSLATION: degenerate outputs of held-out HornMT sentences (target 0); chrF');
  console.log(
    `${'direction'.padEnd(10)}${'n'.padStart(5)}  ${runs.flatMap((r) => [`greedy ${r}`, `beam ${r}`].map((c) => c.padEnd(17))).join('')}${'copy src'.padEnd(10)}${'reference'.padEnd(10)}`,
  );
  const totals: Record<string, number> = {};
  for (const [source, target] of DIRECTIONS) {
    const direction = `${source}-${target}`;
    const rows = sentences[direction]!;
    const sourcesOf = rows.map((r) => r.source);
    const references = rows.map((r) => r.reference);
    const copy = countDegenerate(rows.map((r) => ({ output: r.source, source: r.source })));
    const reference = countDegenerate(rows.map((r) => ({ output: r.reference, source: r.source })));
    const copyChrf = round2(corpusChrf(sourcesOf, references));
    const entry: Record<string, unknown> = { sentences: rows.length, sourceCopied: { ...copy, chrf: copyChrf }, reference };
    const cells: string[] = [];
    for (const run of runs) {
      const outputs = results[run]!.translations[direction];
      for (const mode of ['greedy', 'beam'] as const) {
        if (outputs === undefined) {
          cells.push('-'.padEnd(17));
          continue;
        }
        const counts: DegeneracyCounts = countDegenerate(outputs[mode].map((output, i) => ({ output, source: sourcesOf[i]! })));
        const chrf = round2(corpusChrf(outputs[mode], references));
        entry[`${mode}-${run}`] = { ...counts, chrf };
        totals[`${mode}-${run}`] = (totals[`${mode}-${run}`] ?? 0) + counts.degenerate;
        cells.push(`${counts.degenerate} (chrF ${chrf})`.padEnd(17));
      }
    }
    totals['copy'] = (totals['copy'] ?? 0) + copy.degenerate;
    totals['reference'] = (totals['reference'] ?? 0) + reference.degenerate;
    translationSummary[direction] = entry;
    console.log(
      `${direction.padEnd(10)}${String(rows.length).padStart(5)}  ${cells.join('')}${`${copy.degenerate} (${copyChrf})`.padEnd(10)}${String(reference.degenerate).padEnd(10)}`,
    );
  }
  console.log(
    `total degenerate: ${Object.entries(totals)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  translationSummary['totals'] = totals;
  summary['translation'] = translationSummary;
}

const file = writeBenchResults('robustness', {
  bench: 'robustness',
  date: new Date().toISOString(),
  node: process.version,
  model: results[runs[0]!]?.model,
  translationModel: results[runs[0]!]?.translationModel,
  corpus: { dir: CORPUS, seed: manifest.seed, totals: manifest.totals },
  options: {
    minutes: MINUTES,
    clipSeconds: CLIP_SECONDS,
    count: COUNT,
    conditions,
    sentences: SENTENCES,
    surfaces: SURFACES,
    wsSpeed: WS_SPEED,
    wsVad: WS_VAD || 'default',
    concurrency: CONCURRENCY,
    language: LANGUAGE,
  },
  runs: Object.fromEntries(runs.map((r) => [r, { env: RUN_ENV[r], seconds: results[r]!.seconds, phases: results[r]!.phases }])),
  gateKeysKnown: knownKeys,
  wsCapacityRetries: capacity.retries,
  summary,
  rows: Object.fromEntries(
    runs.map((r) => [
      r,
      {
        nonSpeech: results[r]!.nonSpeech,
        speech: results[r]!.speech,
        translations: Object.fromEntries(
          Object.entries(results[r]!.translations).map(([direction, out]) => [
            direction,
            sentences[direction]!.map((s, i) => ({ line: s.line, source: s.source, greedy: out.greedy[i], beam: out.beam[i] })),
          ]),
        ),
      },
    ]),
  ),
});
if (capacity.retries > 0) console.log(`WebSocket sessions retried after a capacity refusal: ${capacity.retries}`);
console.log(`wrote ${file}`);
