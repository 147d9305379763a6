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
 * Eigenvalues (descending) and unit eigenvectors of a symmetric matrix by cyclic Jacobi rotations.
 * `vectors` is row-major n×n with eigenvector k in column k.
 */
export function symmetricEigen(matrix: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    let total = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const x = a[i * n + j]! * a[i * n + j]!;
        total += x;
        if (i !== j) off += x;
      }
    }
    if (off <= 1e-22 * total || off === 0) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => a[y * n + y]! - a[x * n + x]!);
  const values = Float64Array.from(order, (i) => a[i * n + i]!);
  const vectors = new Float64Array(n * n);
  order.forEach((from, to) => {
    for (let k = 0; k < n; k++) vectors[k * n + to] = v[k * n + from]!;
  });
  return { values, vectors };
}

/**
 * Eigenvalues (descending) of a symmetric matrix, without eigenvectors: Householder reduction to
 * tridiagonal form, then the implicit QL algorithm (about 4n³/3 operations, several times fewer
 * than Jacobi rotations; for the eigengap of a few hundred points).
 */
export function symmetricEigenvalues(matrix: Float64Array, n: number): Float64Array {
  const a = Float64Array.from(matrix);
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  // Householder tridiagonalisation (tred2 without accumulating the transformations).
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
  for (let i = 0; i < n; i++) d[i] = a[i * n + i]!;
  // Implicit QL with shifts on the tridiagonal (d diagonal, e sub-diagonal).
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
          let f = s * e[i]!;
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
          f = 0;
        }
        if (r === 0 && i >= l) continue;
        d[l]! -= p;
        e[l] = g;
        e[m] = 0;
      }
    } while (m !== l);
  }
  return d.sort().reverse();
}
