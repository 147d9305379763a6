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

__attribute__((target("avx2,fma"))) inline float ReduceAvx2(__m256 s0, __m256 s1, __m256 s2,
                                                            __m256 s3) {
  const __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
  __m128 r = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  r = _mm_add_ps(r, _mm_movehl_ps(r, r));
  r = _mm_add_ss(r, _mm_shuffle_ps(r, r, 1));
  return _mm_cvtss_f32(r);
}

__attribute__((target("avx2,fma"))) float DotAvx2(const float* a, const float* b, size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= n; i += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  }
  float sum = ReduceAvx2(s0, s1, s2, s3);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

__attribute__((target("avx2,fma"))) void Dot2Avx2(const float* a, const float* b0, const float* b1,
                                                  size_t n, float* out) {
  __m256 p0 = _mm256_setzero_ps(), p1 = _mm256_setzero_ps();
  __m256 p2 = _mm256_setzero_ps(), p3 = _mm256_setzero_ps();
  __m256 q0 = _mm256_setzero_ps(), q1 = _mm256_setzero_ps();
  __m256 q2 = _mm256_setzero_ps(), q3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 c0 = _mm256_loadu_ps(a + i), c1 = _mm256_loadu_ps(a + i + 8);
    const __m256 c2 = _mm256_loadu_ps(a + i + 16), c3 = _mm256_loadu_ps(a + i + 24);
    p0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b0 + i), p0);
    q0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b1 + i), q0);
    p1 = _mm256_fmadd_ps(c1, _mm256_loadu_ps(b0 + i + 8), p1);
    q1 = _mm256_fmadd_ps(c1, _mm256_loadu_ps(b1 + i + 8), q1);
    p2 = _mm256_fmadd_ps(c2, _mm256_loadu_ps(b0 + i + 16), p2);
    q2 = _mm256_fmadd_ps(c2, _mm256_loadu_ps(b1 + i + 16), q2);
    p3 = _mm256_fmadd_ps(c3, _mm256_loadu_ps(b0 + i + 24), p3);
    q3 = _mm256_fmadd_ps(c3, _mm256_loadu_ps(b1 + i + 24), q3);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 c0 = _mm256_loadu_ps(a + i);
    p0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b0 + i), p0);
    q0 = _mm256_fmadd_ps(c0, _mm256_loadu_ps(b1 + i), q0);
  }
  float x = ReduceAvx2(p0, p1, p2, p3);
  float y = ReduceAvx2(q0, q1, q2, q3);
  for (; i < n; ++i) {
    x += a[i] * b0[i];
    y += a[i] * b1[i];
  }
  out[0] = x;
  out[1] = y;
}

__attribute__((target("avx512f"))) inline float Reduce512(__m512 s0, __m512 s1, __m512 s2,
                                                          __m512 s3) {
  __m512 t = _mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3));
  t = _mm512_add_ps(t, _mm512_shuffle_f32x4(t, t, _MM_SHUFFLE(1, 0, 3, 2)));
  t = _mm512_add_ps(t, _mm512_shuffle_f32x4(t, t, _MM_SHUFFLE(2, 3, 0, 1)));
  __m128 r = _mm512_castps512_ps128(t);
  r = _mm_add_ps(r, _mm_movehl_ps(r, r));
  r = _mm_add_ss(r, _mm_shuffle_ps(r, r, 1));
  return _mm_cvtss_f32(r);
}

__attribute__((target("avx512f"))) float DotAvx512(const float* a, const float* b, size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  __m512 s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
    s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32), s2);
    s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48), s3);
  }
  for (; i + 16 <= n; i += 16) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
  }
  if (i < n) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1u);
    s1 =
        _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, a + i), _mm512_maskz_loadu_ps(mask, b + i), s1);
  }
  return Reduce512(s0, s1, s2, s3);
}

__attribute__((target("avx512f"))) void Dot2Avx512(const float* a, const float* b0, const float* b1,
                                                   size_t n, float* out) {
  __m512 p0 = _mm512_setzero_ps(), p1 = _mm512_setzero_ps();
  __m512 p2 = _mm512_setzero_ps(), p3 = _mm512_setzero_ps();
  __m512 q0 = _mm512_setzero_ps(), q1 = _mm512_setzero_ps();
  __m512 q2 = _mm512_setzero_ps(), q3 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 c0 = _mm512_loadu_ps(a + i), c1 = _mm512_loadu_ps(a + i + 16);
    const __m512 c2 = _mm512_loadu_ps(a + i + 32), c3 = _mm512_loadu_ps(a + i + 48);
    p0 = _mm512_fmadd_ps(c0, _mm512_loadu_ps(b0 + i), p0);
    q0 = _mm512_fmadd_ps(c0, _mm512_loadu_ps(b1 + i), q0);
    p1 = _mm512_fmadd_ps(c1, _mm512_loadu_ps(b0 + i + 16), p1);
    q1 = _mm512_fmadd_ps(c1, _mm512_loadu_ps(b1 + i + 16), q1);
    p2 = _mm512_fmadd_ps(c2, _mm512_loadu_ps(b0 + i + 32), p2);
    q2 = _mm512_fmadd_ps(c2, _mm512_loadu_ps(b1 + i + 32), q2);
    p3 = _mm512_fmadd_ps(c3, _mm512_loadu_ps(b0 + i + 48), p3);
    q3 = _mm512_fmadd_ps(c3, _mm512_loadu_ps(b1 + i + 48), q3);
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 c0 = _mm512_loadu_ps(a + i);
    p0 = _mm512_fmadd_ps(c0, _mm512_loadu_ps(b0 + i), p0);
    q0 = _mm512_fmadd_ps(c0, _mm512_loadu_ps(b1 + i), q0);
  }
  if (i < n) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m512 c = _mm512_maskz_loadu_ps(mask, a + i);
    p1 = _mm512_fmadd_ps(c, _mm512_maskz_loadu_ps(mask, b0 + i), p1);
    q1 = _mm512_fmadd_ps(c, _mm512_maskz_loadu_ps(mask, b1 + i), q1);
  }
  out[0] = Reduce512(p0, p1, p2, p3);
  out[1] = Reduce512(q0, q1, q2, q3);
}

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
  if (allow512 && __builtin_cpu_supports("avx512f")) return {DotAvx512, Dot2Avx512, "avx512"};
  if (allow256 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {DotAvx2, Dot2Avx2, "avx2"};
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
