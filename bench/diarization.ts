/**
 * Diarization on synthetic conversations of real ALFFA speakers (bench/diarization-conversations.ts):
 * DER (no collar, overlap scored, optimal mapping) per backend, speaker-count accuracy and the
 * diarization time per audio second; `--tune` measures the development speaker groups only (with
 * the count given, and at each `--thresholds` value). Writes bench/results/diarization.json.
 *
 *   npx tsx bench/diarization.ts [--tune] [--per-count 3] [--projection FILE|identity] [--only-tune]
 *     [--params JSON] [--thresholds LIST] [--backend NAME] [--out NAME.json]
 * `--params` overrides backend parameters (development runs); `--out` names the results file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { BACKENDS, type BackendParameters, diarize, DIARIZATION_BACKENDS, type DiarizationBackend } from '../src/speech/diarization/diarize.js';
import { diarizationErrorRate } from '../src/speech/diarization/diarization-error-rate.js';
import { MFCC_COEFFICIENTS } from '../src/speech/diarization/speaker-features.js';
import { identityProjection, loadSpeakerProjection } from '../src/speech/diarization/speaker-projection.js';
import { conversationSet, DEV_GROUPS, loadGroupClips, TEST_GROUPS, type Conversation } from './diarization-conversations.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const perCount = Number(option('--per-count') ?? 3) || 3;
/** The shipped projection by default; `--projection identity` measures the untrained statistics. */
const projectionPath = option('--projection') ?? new URL('../models/diarization/speaker-ivector-v1.json', import.meta.url).pathname;
const projection = projectionPath === 'identity' ? identityProjection(2 * MFCC_COEFFICIENTS) : await loadSpeakerProjection(projectionPath);

interface Figures {
  der: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  countAccuracy: number;
  /** Conversations by speakers found minus speakers there ("-1", "0", "+2", ...). */
  countErrors: Record<string, number>;
  secondsPerAudioSecond: number;
}

/** `--params '{"pcaDims":4}'` overrides backend parameters (both backends) for development runs. */
const overrides = JSON.parse(option('--params') ?? '{}') as Partial<BackendParameters>;

function evaluate(set: readonly Conversation[], backend: DiarizationBackend, threshold?: number, knownCount = false): Figures {
  // Milliseconds summed over the set, of each part of the error and of the reference speech.
  const ms = { missedMs: 0, falseAlarmMs: 0, confusionMs: 0, referenceMs: 0 };
  let countsRight = 0;
  const countErrors: Record<string, number> = {};
  let seconds = 0;
  let audioSeconds = 0;
  for (const c of set) {
    const started = process.hrtime.bigint();
    const parameters = { ...BACKENDS[backend], ...overrides, ...(threshold === undefined ? {} : { threshold }) };
    const bound = knownCount ? c.speakers : null;
    const turns = diarize(c.pcm, { backend, minSpeakers: bound, maxSpeakers: bound }, projection, parameters);
    seconds += Number(process.hrtime.bigint() - started) / 1e9;
    audioSeconds += c.pcm.length / 16_000;
    const score = diarizationErrorRate(
      c.reference,
      turns.map((t) => ({ ...t, speaker: String(t.speaker) })),
    );
    for (const key of Object.keys(ms) as (keyof typeof ms)[]) ms[key] += score[key];
    const found = new Set(turns.map((t) => t.speaker)).size;
    if (found === c.speakers) countsRight++;
    const key = found - c.speakers > 0 ? `+${found - c.speakers}` : String(found - c.speakers);
    countErrors[key] = (countErrors[key] ?? 0) + 1;
  }
  return {
    der: (ms.missedMs + ms.falseAlarmMs + ms.confusionMs) / ms.referenceMs,
    missed: ms.missedMs / ms.referenceMs,
    falseAlarm: ms.falseAlarmMs / ms.referenceMs,
    confusion: ms.confusionMs / ms.referenceMs,
    countAccuracy: countsRight / set.length,
    countErrors,
    secondsPerAudioSecond: seconds / audioSeconds,
  };
}

await loadGroupClips([...DEV_GROUPS, ...TEST_GROUPS], 12);

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const results: Record<string, unknown> = { perCount, projection: projection.name, devGroups: DEV_GROUPS, testGroups: TEST_GROUPS };

const thresholds = (option('--thresholds') ?? '-0.1,0,0.1,0.2,0.3,0.4,0.5').split(',').map(Number);
const tuneBackends = DIARIZATION_BACKENDS.filter((b) => (option('--backend') ?? b) === b);
if (args.includes('--tune')) {
  const dev = conversationSet(DEV_GROUPS, [2, 3, 4], perCount, 7);
  for (const backend of tuneBackends) {
    const known = evaluate(dev, backend, undefined, true);
    console.log(
      `${backend} count given: DER ${pct(known.der)} (missed ${pct(known.missed)}, false alarm ${pct(known.falseAlarm)}, confusion ${pct(known.confusion)})`,
    );
    const sweep: Record<string, Figures> = { countGiven: known };
    for (const threshold of thresholds) {
      sweep[threshold] = evaluate(dev, backend, threshold);
      console.log(
        `${backend} threshold ${threshold}: DER ${pct(sweep[threshold]!.der)} count ${pct(sweep[threshold]!.countAccuracy)} ${JSON.stringify(sweep[threshold]!.countErrors)}`,
      );
    }
    results[`tune_${backend}`] = sweep;
  }
}

if (args.includes('--only-tune')) process.exit(0);
const sets = { '2-4': conversationSet(TEST_GROUPS, [2, 3, 4], perCount, 1000), '5-6': conversationSet(TEST_GROUPS, [5, 6], perCount, 2000) };
for (const backend of DIARIZATION_BACKENDS) {
  for (const [name, set] of Object.entries(sets))
    for (const known of [false, true]) {
      const f = evaluate(set, backend, undefined, known);
      const label = `${backend} ${name} speakers${known ? ', count given' : ''}`;
      results[label] = f;
      console.log(
        `${label} (${set.length} conversations, held-out groups): DER ${pct(f.der)} (missed ${pct(f.missed)}, false alarm ${pct(f.falseAlarm)}, confusion ${pct(f.confusion)}), speaker count right ${pct(f.countAccuracy)}, ${f.secondsPerAudioSecond.toFixed(4)} s per audio second`,
      );
    }
}
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL(`./results/${option('--out') ?? 'diarization.json'}`, import.meta.url),
  `${JSON.stringify({ measuredAt: new Date().toISOString(), ...results }, null, 2)}\n`,
);
