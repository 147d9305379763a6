import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../training/common/seeded-random.js';
import { solvePositiveDefinite, symmetricEigen, symmetricEigenvalues } from './speaker-linear-algebra.js';

/** A random symmetric positive definite n×n matrix (BᵀB + n I). */
function randomPositiveDefinite(n: number, seed: number): Float64Array {
  const random = seededRandom(seed);
  const b = Float64Array.from({ length: n * n }, () => random() * 2 - 1);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) a[i * n + j]! += b[k * n + i]! * b[k * n + j]!;
  for (let i = 0; i < n; i++) a[i * n + i]! += n;
  return a;
}

describe('solvePositiveDefinite', () => {
  it('solves A x = b', () => {
    const n = 7;
    const a = randomPositiveDefinite(n, 3);
    const x = Float64Array.from({ length: n }, (_, i) => i - 3);
    const b = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) b[i]! += a[i * n + j]! * x[j]!;
    const solved = solvePositiveDefinite(a, b, n);
    solved.forEach((v, i) => expect(v).toBeCloseTo(x[i]!, 9));
  });

  it('refuses a matrix that is not positive definite', () => {
    expect(() => solvePositiveDefinite(Float64Array.of(1, 2, 2, 1), Float64Array.of(1, 1), 2)).toThrow(/positive definite/);
  });
});

describe('symmetricEigen', () => {
  it('gives descending eigenvalues and orthonormal eigenvectors that rebuild the matrix', () => {
    const n = 6;
    const a = randomPositiveDefinite(n, 11);
    const { values, vectors } = symmetricEigen(a, n);
    for (let k = 1; k < n; k++) expect(values[k]!).toBeLessThanOrEqual(values[k - 1]!);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let rebuilt = 0;
        let gram = 0;
        for (let k = 0; k < n; k++) {
          rebuilt += vectors[i * n + k]! * values[k]! * vectors[j * n + k]!;
          gram += vectors[k * n + i]! * vectors[k * n + j]!;
        }
        expect(rebuilt).toBeCloseTo(a[i * n + j]!, 8);
        expect(gram).toBeCloseTo(i === j ? 1 : 0, 10);
      }
    }
  });

  it('decomposes indefinite and larger matrices, and 1×1', () => {
    for (const n of [1, 2, 30, 120]) {
      const a = randomPositiveDefinite(n, 100 + n);
      for (let i = 0; i < n; i++) a[i * n + i]! -= 1.5 * n;
      const { values, vectors } = symmetricEigen(a, n);
      // A v_k = λ_k v_k for every pair.
      for (let k = 0; k < n; k += Math.max(1, Math.floor(n / 7))) {
        for (let i = 0; i < n; i++) {
          let av = 0;
          for (let j = 0; j < n; j++) av += a[i * n + j]! * vectors[j * n + k]!;
          expect(av).toBeCloseTo(values[k]! * vectors[i * n + k]!, 7);
        }
      }
    }
  });

  it('knows a diagonal matrix', () => {
    const { values } = symmetricEigen(Float64Array.of(1, 0, 0, 0, 3, 0, 0, 0, 2), 3);
    expect(Array.from(values)).toEqual([3, 2, 1]);
  });
});

describe('symmetricEigenvalues', () => {
  it('agrees with the eigenvalues of the full decomposition', () => {
    for (const n of [1, 2, 5, 30]) {
      const a = randomPositiveDefinite(n, n);
      // Make it indefinite too: subtract a multiple of the identity.
      for (let i = 0; i < n; i++) a[i * n + i]! -= 1.5 * n;
      const expected = symmetricEigen(a, n).values;
      const values = symmetricEigenvalues(a, n);
      values.forEach((v, k) => expect(v).toBeCloseTo(expected[k]!, 8));
    }
  });
});
