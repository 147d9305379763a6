#include "dsp/simd-dot.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 flags the deliberate `__m512 __Y = __Y` inside its own intrinsic headers when they
// are inlined here (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define GW_X86 1
#endif

namespace gw {

float DotScalar(const float* a, const float* b, size_t n) {
  // Four independent sums let the compiler keep several multiply-adds in flight.
  float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

void Dot2Scalar(const float* a, const float* b0, const float* b1, size_t n, float* out) {
  out[0] = DotScalar(a, b0, n);
  out[1] = DotScalar(a, b1, n);
}

#ifdef GW_X86
namespace {

// AVX2 + FMA: 8 lanes; no masked loads, so the last n % 8 products are added in scalar code.
namespace avx2 {
#define GW_SIMD_TARGET __attribute__((target("avx2,fma")))
#define GW_MM(op) _mm256_##op
using V = __m256;
GW_SIMD_TARGET inline __m128 Fold128(V s) {
  return _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
}
GW_SIMD_TARGET inline size_t MaskedTail(const float*, const float*, size_t i, size_t, V*) {
  return i;
}
#include "dsp/simd-dot-kernels.inc"
#undef GW_MM
#undef GW_SIMD_TARGET
}  // namespace avx2

// AVX-512F: 16 lanes; the last n % 16 products go into a sum through masked loads (zeros past n).
namespace avx512 {
#define GW_SIMD_TARGET __attribute__((target("avx512f")))
#define GW_MM(op) _mm512_##op
using V = __m512;
GW_SIMD_TARGET inline __m128 Fold128(V t) {
  t = _mm512_add_ps(t, _mm512_shuffle_f32x4(t, t, _MM_SHUFFLE(1, 0, 3, 2)));
  t = _mm512_add_ps(t, _mm512_shuffle_f32x4(t, t, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm512_castps512_ps128(t);
}
GW_SIMD_TARGET inline size_t MaskedTail(const float* a, const float* b, size_t i, size_t n,
                                        V* sum) {
  if (i < n) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1u);
    *sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, a + i), _mm512_maskz_loadu_ps(mask, b + i),
                           *sum);
  }
  return n;
}
#include "dsp/simd-dot-kernels.inc"
#undef GW_MM
#undef GW_SIMD_TARGET
}  // namespace avx512

struct Choice {
  DotFn fn;
  Dot2Fn fn2;
  const char* name;
};

Choice Choose() {
  const char* cap = std::getenv("GATEWAY_DSP_SIMD");
  const bool allow512 = cap == nullptr || std::strcmp(cap, "avx512") == 0;
  const bool allow256 = allow512 || (cap != nullptr && std::strcmp(cap, "avx2") == 0);
  __builtin_cpu_init();
  if (allow512 && __builtin_cpu_supports("avx512f")) return {avx512::Dot, avx512::Dot2, "avx512"};
  if (allow256 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {avx2::Dot, avx2::Dot2, "avx2"};
  }
  return {DotScalar, Dot2Scalar, "scalar"};
}

const Choice& Chosen() {
  static const Choice choice = Choose();
  return choice;
}

}  // namespace

DotFn SelectedDot() { return Chosen().fn; }
Dot2Fn SelectedDot2() { return Chosen().fn2; }
const char* SelectedDotName() { return Chosen().name; }

#else

DotFn SelectedDot() { return DotScalar; }
Dot2Fn SelectedDot2() { return Dot2Scalar; }
const char* SelectedDotName() { return "scalar"; }

#endif

}  // namespace gw
