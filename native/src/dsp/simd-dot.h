// Float dot product with run-time CPU dispatch (AVX-512F, AVX2+FMA, portable fallback),
// so the addon built by `npm ci` runs on any x86-64 host and uses the widest unit it has.
// GATEWAY_DSP_SIMD=scalar|avx2|avx512 caps the choice (for benchmarks and tests).
#pragma once

#include <cstddef>

namespace gw {

using DotFn = float (*)(const float* a, const float* b, size_t n);
// Two dot products sharing `a`: out[0] = a.b0, out[1] = a.b1. Each result is bitwise equal
// to what DotFn computes for the same vectors (same accumulation order), so callers may mix
// the two freely.
using Dot2Fn = void (*)(const float* a, const float* b0, const float* b1, size_t n, float* out);

// The kernels selected for this process (decided once, thread-safe).
DotFn SelectedDot();
Dot2Fn SelectedDot2();
// Name of the selected kernel: "avx512", "avx2" or "scalar".
const char* SelectedDotName();

float DotScalar(const float* a, const float* b, size_t n);
void Dot2Scalar(const float* a, const float* b0, const float* b1, size_t n, float* out);

}  // namespace gw
