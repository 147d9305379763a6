// The committed held-out clips (test/fixtures/heldout/, README there): heldout.tsv names each
// clip's file, language, source set and reference transcript, one clip a line. The one reader of
// that list for tests, benchmarks and training/asr/fixture-cer.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repository-root.js';

export interface HeldOutFixture {
  /** File name inside HELDOUT_FIXTURES_DIR. */
  readonly file: string;
  /** Absolute path of the clip. */
  readonly path: string;
  readonly language: string;
  /** The set it was taken from, e.g. `alffa_spk_heldout` or `synth_om_test_clean`. */
  readonly set: string;
  readonly reference: string;
}

export const HELDOUT_FIXTURES_DIR = join(REPO_ROOT, 'test', 'fixtures', 'heldout');

/** Every clip of heldout.tsv, in its order. */
export function heldOutFixtures(): HeldOutFixture[] {
  return readFileSync(join(HELDOUT_FIXTURES_DIR, 'heldout.tsv'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [file, language, set, reference] = line.split('\t');
      if (file === undefined || language === undefined || set === undefined || reference === undefined) {
        throw new Error(`heldout.tsv: a line without four tab-separated fields: ${line}`);
      }
      return { file, path: join(HELDOUT_FIXTURES_DIR, file), language, set, reference };
    });
}

/** One clip of heldout.tsv by file name; a name the list lacks is an error, not a missing file later. */
export function heldOutClip(file: string): HeldOutFixture {
  const clip = heldOutFixtures().find((f) => f.file === file);
  if (clip === undefined) throw new Error(`heldout.tsv lists no clip ${file}`);
  return clip;
}
