// The held-out HornMT split of the translation model, rebuilt in TypeScript (bench/hornmt-heldout.ts
// over bench/python-random.ts): Python's Mersenne Twister and shuffle against values CPython 3.11
// printed, and the split against the sentences committed in the model's heldout/ folder.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hornmtHeldout, hornmtSplit, readLinesLikePython, usablePair } from '../../bench/hornmt-heldout.js';
import { PythonRandom } from '../../bench/python-random.js';
import { REPO_ROOT } from '../helpers/fixtures.js';

const DATA = join(REPO_ROOT, '..', 'shared', 'data');
const haveData = existsSync(join(DATA, 'text', 'hornmt', 'amh.txt')) && existsSync(join(DATA, 'parallel', 'ti-en', 'wikipedia.ti'));

describe("Python's random in TypeScript", () => {
  it('gives the outputs CPython 3.11 gives', () => {
    // python3 -c "import random; r=random.Random(7); print([r.getrandbits(32) for _ in range(3)])"
    const r = new PythonRandom(7);
    expect([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)]).toEqual([1390851128, 4071050724, 647892279]);
    // x=list(range(10)); random.Random(7).shuffle(x); print(x)
    const x = Array.from({ length: 10 }, (_, i) => i);
    new PythonRandom(7).shuffle(x);
    expect(x).toEqual([8, 3, 1, 4, 7, 0, 9, 6, 2, 5]);
    // r=random.Random(2**40 + 5): a seed of two 32-bit words; [r.getrandbits(32) for _ in range(2)]
    const wide = new PythonRandom(2 ** 40 + 5);
    expect([wide.getrandbits(32), wide.getrandbits(32)]).toEqual([2166296868, 2220160828]);
    // random.Random(20261124).getrandbits(32): prepare_mt.py's seed
    expect(new PythonRandom(20_261_124).getrandbits(32)).toBe(3538602242);
    expect(() => new PythonRandom(0.5)).toThrow();
  });

  it('draws below n uniformly', () => {
    const r = new PythonRandom(1);
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[r.randbelow(3)]!++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(400);
  });
});

describe('the HornMT held-out split', () => {
  it('reads lines as Python does and filters pairs as prepare_mt.py', () => {
    expect(usablePair('a', 'b')).toBe(true);
    expect(usablePair('', 'b')).toBe(false);
    expect(usablePair('a'.repeat(401), 'b')).toBe(false);
    expect(usablePair('ሀ'.repeat(400), 'b')).toBe(true);
    const file = join(REPO_ROOT, 'package.json');
    expect(readLinesLikePython(file).length).toBe(readFileSync(file, 'utf8').split('\n').length - 1);
  });

  it.skipIf(!haveData)('holds 300 test lines (the first lines and the sum CPython gives) and every committed held-out HornMT sentence', () => {
    const { dev, test } = hornmtSplit(DATA);
    expect(dev.length).toBe(150);
    expect(test.length).toBe(300);
    // The same lines prepare_mt.py's seed gives under CPython 3.11.
    expect(test.slice(0, 8)).toEqual([6, 10, 13, 19, 43, 60, 71, 90]);
    expect(test.reduce((a, b) => a + b, 0)).toBe(312_097);
    const heldout = hornmtHeldout(DATA);
    expect(Object.keys(heldout).sort()).toEqual(['am-en', 'am-ti', 'en-am', 'en-ti', 'ti-am', 'ti-en']);
    for (const [direction, rows] of Object.entries(heldout)) {
      const [source] = direction.split('-') as [string];
      const hornmt = new Set(readLinesLikePython(join(DATA, 'text', 'hornmt', `${{ am: 'amh', en: 'eng', ti: 'tir' }[source]}.txt`)));
      const committed = readFileSync(join(REPO_ROOT, 'models', 'translate-am-en-ti-v1', 'heldout', `${direction}.src`), 'utf8')
        .trimEnd()
        .split('\n');
      const fromHornmt = committed.filter((line) => hornmt.has(line));
      expect(fromHornmt.length, direction).toBeGreaterThan(10);
      const ours = new Set(rows.map((r) => r.source));
      for (const line of fromHornmt) expect(ours.has(line), `${direction}: ${line}`).toBe(true);
    }
  });
});
