/**
 * Small dense linear algebra for the diarization embeddings (dimensions of tens): a solve with a
 * symmetric positive definite matrix and the eigen-decomposition of a symmetric matrix. Matrices
 * are row-major Float64Arrays of n×n.
 */

/** x with A x = b for symmetric positive definite A (Cholesky); A and b are left as they are. */
export function solvePositiveDefinite(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j]!;
      for (let k = 0; k < j; k++) s -= l[i * n + k]! * l[j * n + k]!;
      if (i === j) {
        if (!(s > 0)) throw new Error('solvePositiveDefinite: the matrix is not positive definite');
        l[i * n + i] = Math.sqrt(s);
      } else l[i * n + j] = s / l[j * n + j]!;
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i * n + k]! * y[k]!;
    y[i] = s / l[i * n + i]!;
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

/**
 * Eigenvalues (descending) and unit eigenvectors of a symmetric matrix: Householder reduction to
 * tridiagonal form with the transformations accumulated, then the implicit QL algorithm applying
 * its rotations to them (about 9n³ operations for both; the eigenvalues alone cost about 4n³/3).
 * `vectors` is row-major n×n with eigenvector k in column k; a vector's sign is arbitrary.
 */
export function symmetricEigen(matrix: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const z = Float64Array.from(matrix);
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tridiagonalize(z, n, d, e, true);
  tridiagonalQl(d, e, z, n);
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => d[y]! - d[x]!);
  const values = Float64Array.from(order, (i) => d[i]!);
  const vectors = new Float64Array(n * n);
  order.forEach((from, to) => {
    for (let k = 0; k < n; k++) vectors[k * n + to] = z[k * n + from]!;
  });
  return { values, vectors };
}

/** Eigenvalues (descending) of a symmetric matrix, without eigenvectors (for the eigengap of a few hundred points). */
export function symmetricEigenvalues(matrix: Float64Array, n: number): Float64Array {
  const a = Float64Array.from(matrix);
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tridiagonalize(a, n, d, e, false);
  tridiagonalQl(d, e, null, n);
  return d.sort().reverse();
}

/**
 * Householder tridiagonalisation of `a` in place (tred2): on return `d` holds the diagonal and
 * `e` the sub-diagonal in e[1..n-1]; with `accumulate`, `a` holds the orthogonal transformation
 * (its columns are the basis the tridiagonal is expressed in), otherwise `a` is scratch.
 */
function tridiagonalize(a: Float64Array, n: number, d: Float64Array, e: Float64Array, accumulate: boolean): void {
  for (let i = n - 1; i > 0; i--) {
    const l = i - 1;
    let h = 0;
    if (l > 0) {
      let scale = 0;
      for (let k = 0; k <= l; k++) scale += Math.abs(a[i * n + k]!);
      if (scale === 0) e[i] = a[i * n + l]!;
      else {
        for (let k = 0; k <= l; k++) {
          a[i * n + k]! /= scale;
          h += a[i * n + k]! * a[i * n + k]!;
        }
        let f = a[i * n + l]!;
        const g = f >= 0 ? -Math.sqrt(h) : Math.sqrt(h);
        e[i] = scale * g;
        h -= f * g;
        a[i * n + l] = f - g;
        f = 0;
        for (let j = 0; j <= l; j++) {
          if (accumulate) a[j * n + i] = a[i * n + j]! / h;
          let gj = 0;
          for (let k = 0; k <= j; k++) gj += a[j * n + k]! * a[i * n + k]!;
          for (let k = j + 1; k <= l; k++) gj += a[k * n + j]! * a[i * n + k]!;
          e[j] = gj / h;
          f += e[j]! * a[i * n + j]!;
        }
        const hh = f / (h + h);
        for (let j = 0; j <= l; j++) {
          const fj = a[i * n + j]!;
          const gj = e[j]! - hh * fj;
          e[j] = gj;
          for (let k = 0; k <= j; k++) a[j * n + k]! -= fj * e[k]! + gj * a[i * n + k]!;
        }
      }
    } else e[i] = a[i * n + l]!;
    d[i] = h;
  }
  if (n > 0) {
    d[0] = 0;
    e[0] = 0;
  }
  for (let i = 0; i < n; i++) {
    if (accumulate) {
      // d[i] still holds h of row i: apply that reflection to the rows and columns below it.
      if (d[i] !== 0) {
        for (let j = 0; j < i; j++) {
          let g = 0;
          for (let k = 0; k < i; k++) g += a[i * n + k]! * a[k * n + j]!;
          for (let k = 0; k < i; k++) a[k * n + j]! -= g * a[k * n + i]!;
        }
      }
      d[i] = a[i * n + i]!;
      a[i * n + i] = 1;
      for (let j = 0; j < i; j++) {
        a[j * n + i] = 0;
        a[i * n + j] = 0;
      }
    } else d[i] = a[i * n + i]!;
  }
}

/**
 * Implicit QL with shifts on the tridiagonal (`d` diagonal, `e` sub-diagonal in e[1..n-1]; both
 * overwritten, `d` with the eigenvalues unsorted); `z` (or null), row-major n×n, gets every
 * rotation applied to its columns, so z = the tridiagonaliser gives the eigenvectors in columns.
 */
function tridiagonalQl(d: Float64Array, e: Float64Array, z: Float64Array | null, n: number): void {
  for (let i = 1; i < n; i++) e[i - 1] = e[i]!;
  if (n > 0) e[n - 1] = 0;
  for (let l = 0; l < n; l++) {
    let iterations = 0;
    let m: number;
    do {
      for (m = l; m < n - 1; m++) {
        const dd = Math.abs(d[m]!) + Math.abs(d[m + 1]!);
        if (Math.abs(e[m]!) <= Number.EPSILON * dd) break;
      }
      if (m !== l) {
        if (iterations++ === 60) break;
        let g = (d[l + 1]! - d[l]!) / (2 * e[l]!);
        let r = Math.hypot(g, 1);
        g = d[m]! - d[l]! + e[l]! / (g + (g >= 0 ? Math.abs(r) : -Math.abs(r)));
        let s = 1;
        let c = 1;
        let p = 0;
        let i: number;
        for (i = m - 1; i >= l; i--) {
          const f = s * e[i]!;
          const b = c * e[i]!;
          r = Math.hypot(f, g);
          e[i + 1] = r;
          if (r === 0) {
            d[i + 1]! -= p;
            e[m] = 0;
            break;
          }
          s = f / r;
          c = g / r;
          g = d[i + 1]! - p;
          r = (d[i]! - g) * s + 2 * c * b;
          p = s * r;
          d[i + 1] = g + p;
          g = c * r - b;
          if (z !== null) {
            for (let k = 0; k < n; k++) {
              const zk = z[k * n + i + 1]!;
              z[k * n + i + 1] = s * z[k * n + i]! + c * zk;
              z[k * n + i] = c * z[k * n + i]! - s * zk;
            }
          }
        }
        if (r === 0 && i >= l) continue;
        d[l]! -= p;
        e[l] = g;
        e[m] = 0;
      }
    } while (m !== l);
  }
}
