import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HORNMT_HELD_OUT_FROM, readCorpus } from './lm-corpus.js';

let data: string;

beforeAll(async () => {
  data = await mkdtemp(join(tmpdir(), 'lm-corpus-'));
  await mkdir(join(data, 'text/hornmt'), { recursive: true });
  await mkdir(join(data, 'text/afrisenti'), { recursive: true });
  await mkdir(join(data, 'alffa-am-train'), { recursive: true });
  const horn = Array.from({ length: HORNMT_HELD_OUT_FROM + 3 }, (_, i) => `ዜና ቁጥር ${i}`);
  horn[HORNMT_HELD_OUT_FROM + 1] = 'የተያዘ ዓረፍተ ነገር።';
  await writeFile(join(data, 'text/hornmt/amh.txt'), `${horn.join('\n')}\n`);
  // A tweet that repeats a held-out HornMT line, one that repeats an ALFFA transcript with ሐ for ሀ.
  await writeFile(join(data, 'text/afrisenti/amh.txt'), 'ሰላም ነው\nየተያዘ ዓረፍተ ነገር\nሐገር ሰላም ናት\n');
  await writeFile(join(data, 'alffa-am-train/text'), 'tr_1_a ሀገር ሰላም ናት\ntr_2_b ቤት ውስጥ\n');
  await writeFile(join(data, 'alffa-am-train/all-train-transcripts.txt'), 'tr_1_a ሀገር ሰላም ናት\ntr_2_b ቤት ውስጥ\ntr_3_c ሌላ ዓረፍተ ነገር\ntr_4_d ቤት ውስጥ\n');
});

afterAll(async () => {
  await rm(data, { recursive: true, force: true });
});

describe('LM corpus hold-out', () => {
  it('keeps ALFFA utterances with audio, HornMT lines 1900.. and their repeats out of the LM text', async () => {
    const { lines, excluded, heldOutIds } = await readCorpus(data, 'am');
    const texts = lines.map((l) => l.text);
    expect(heldOutIds).toBe(2);
    expect(texts).toContain('ሌላ ዓረፍተ ነገር');
    expect(texts).toContain('ሰላም ነው');
    expect(texts).toContain(`ዜና ቁጥር ${HORNMT_HELD_OUT_FROM - 1}`);
    expect(texts).not.toContain(`ዜና ቁጥር ${HORNMT_HELD_OUT_FROM}`);
    expect(texts.some((t) => t.includes('የተያዘ'))).toBe(false);
    expect(texts.some((t) => t.includes('ሀገር') || t.includes('ሐገር'))).toBe(false);
    expect(texts).not.toContain('ቤት ውስጥ'); // tr_4_d has no audio but repeats tr_2_b's transcript
    expect(excluded).toBe(2 + 3 + 3); // two ids, three HornMT lines, three repeats (tweet x2, tr_4_d)
  });

  it('has no ALFFA source for om and ti', async () => {
    await expect(readCorpus(data, 'om')).rejects.toThrow(/orm\.txt/);
    await expect(readCorpus(data, 'xx')).rejects.toThrow(/no text corpora for language xx/);
  });
});
