/**
 * Language detection (`language=auto`) on held-out speech: which language Asr.detectLanguage names
 * for each clip, as a file job and a WebSocket session ask it (src/engines/asr/recognition/
 * language-detector.ts). With no language-id model installed, the detector compares the mean token
 * confidence of every language's DEFAULT model on the clip's first seconds of speech, so changing a
 * default can change detection for every language: run this beside the old default
 * (`DEFAULT_MODELS=am=small-am-v2 npx tsx bench/language-detection.ts`) before moving a `default` flag.
 *
 * Clips (none trained on by the shipped defaults):
 * - am, real: the held-out ALFFA speaker groups (bench/held-out-audio.ts; val 041/091/131 and test
 *   021/231), `--per-group` utterances each;
 * - am / om / ti, synthetic: the espeak-ng held-out sets of HornMT lines 1900-2029 that
 *   training/asr/prepare_data.py writes (`<synth-dir>/synth_<lang>_test_clean/*.wav`, at most
 *   `--synth` each); where a language's set is missing, its clips in test/fixtures/heldout/.
 * Prints the accuracy per set and overall beside the trivial baseline "always the most frequent
 * language of the run", and the confusion counts; writes bench/results/<out>.json.
 *
 *   npx tsx bench/language-detection.ts [--data ../shared/data] [--per-group 10] [--synth 60]
 *     [--synth-dir training/work/audio] [--out language-detection]
 * MODELS_DIR (default ./models) and DEFAULT_MODELS come from the environment.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Asr } from '../src/engines/asr/asr.js';
import { loadConfig } from '../src/platform/config/config.js';
import { decodeFile } from '../training/common/decoded-file.js';
import { heldOutFixtures } from '../training/common/heldout-fixtures.js';
import { option } from './bench-args.js';
import { publishReport } from './bench-results.js';
import { heldOutUtterances, TEST_GROUPS, VALIDATION_GROUPS } from './held-out-audio.js';

const DATA = option('data', join(process.cwd(), '..', 'shared', 'data'));
const PER_GROUP = Number(option('per-group', '10'));
const SYNTH = Number(option('synth', '60'));
const SYNTH_DIR = option('synth-dir', join(process.cwd(), 'training', 'work', 'audio'));
const OUT = option('out', 'language-detection');

interface Clip {
  readonly set: string;
  readonly language: string;
  readonly id: string;
  readonly pcm: Float32Array;
}

/** The synthetic held-out clips of `language`: prepare_data.py's set, else the committed fixtures. */
async function syntheticClips(language: string): Promise<Clip[]> {
  const folder = join(SYNTH_DIR, `synth_${language}_test_clean`);
  if (existsSync(folder)) {
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.wav'))
      .sort()
      .slice(0, SYNTH);
    return Promise.all(files.map(async (f) => ({ set: `synth_${language}_test_clean`, language, id: f, pcm: await decodeFile(join(folder, f)) })));
  }
  const rows = heldOutFixtures().filter((row) => row.language === language && row.set.startsWith('synth_'));
  return Promise.all(rows.map(async (row) => ({ set: `fixtures_${row.language}`, language: row.language, id: row.file, pcm: await decodeFile(row.path) })));
}

const clips: Clip[] = [
  ...(await heldOutUtterances(DATA, [...VALIDATION_GROUPS, ...TEST_GROUPS], PER_GROUP)).map((u) => ({
    set: 'alffa_heldout_groups',
    language: 'am',
    id: u.id,
    pcm: u.pcm,
  })),
  ...(await syntheticClips('am')),
  ...(await syntheticClips('om')),
  ...(await syntheticClips('ti')),
];

const config = loadConfig({ DEFAULT_MODELS: process.env['DEFAULT_MODELS'] ?? '' });
const asr = await Asr.create({ modelsDir: process.env['MODELS_DIR'] ?? 'models', defaultModels: config.defaultModels, workers: 1, preload: false });
const defaults = Object.fromEntries(['am', 'om', 'ti'].map((language) => [language, asr.resolveModel(language, null).model]));
console.log(`defaults compared: ${JSON.stringify(defaults)}; ${clips.length} clips`);

const started = Date.now();
/** Each clip with the language the detector named for it. */
const answers: Array<{ set: string; language: string; named: string }> = [];
for (const clip of clips) answers.push({ set: clip.set, language: clip.language, named: (await asr.detectLanguage(clip.pcm)).language });
const seconds = (Date.now() - started) / 1000;
await asr.close();

const percent = (n: number, of: number): number => Math.round((1000 * n) / Math.max(1, of)) / 10;
const accuracyOf = (some: typeof answers): number => percent(some.filter((a) => a.named === a.language).length, some.length);
const languages = [...new Set(answers.map((a) => a.language))];
const count = (language: string): number => answers.filter((a) => a.language === language).length;
const majority = languages.reduce((best, language) => (count(language) > count(best) ? language : best));

const rows = [...new Set(answers.map((a) => a.set))].map((set) => {
  const inSet = answers.filter((a) => a.set === set);
  const named: Record<string, number> = {};
  for (const a of inSet) named[a.named] = (named[a.named] ?? 0) + 1;
  const baseline = percent(inSet.filter((a) => a.language === majority).length, inSet.length);
  return { set, language: inSet[0]!.language, clips: inSet.length, accuracy: accuracyOf(inSet), baseline, named };
});
// balanced: the mean of the languages' accuracies (the run holds far more am clips than om or ti);
// a constant answer scores 100 on one language and 0 on the others
const perLanguage = languages.map((language) => accuracyOf(answers.filter((a) => a.language === language)));
const overall = {
  clips: answers.length,
  accuracy: accuracyOf(answers),
  baseline: percent(count(majority), answers.length),
  balancedAccuracy: Math.round((10 * perLanguage.reduce((a, b) => a + b, 0)) / perLanguage.length) / 10,
  balancedBaseline: Math.round(1000 / languages.length) / 10,
};

console.log(`\nset                      lang  clips  accuracy %  always-${majority} %  named`);
for (const r of rows)
  console.log(
    `${r.set.padEnd(24)} ${r.language.padEnd(5)} ${String(r.clips).padStart(5)}  ${String(r.accuracy).padStart(10)}  ${String(r.baseline).padStart(11)}  ${JSON.stringify(r.named)}`,
  );
console.log(
  `all: ${overall.accuracy}% (always ${majority}: ${overall.baseline}%); balanced over languages ${overall.balancedAccuracy}% (a constant: ${overall.balancedBaseline}%); ${seconds.toFixed(1)} s`,
);
publishReport(OUT, { defaults, perGroup: PER_GROUP, synth: SYNTH, rows, overall, seconds });
