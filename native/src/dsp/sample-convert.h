// Sample format conversions shared by the DSP parts. Little-endian hosts only (x86-64,
// arm64): 16-bit PCM bytes are read with memcpy into int16.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "little-endian host required");

namespace gw {

constexpr float kInt16Scale = 1.0f / 32768.0f;

inline void Int16ToFloat(const int16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]) * kInt16Scale;
}

// Little-endian 16-bit PCM bytes (any alignment) to float.
inline void Pcm16BytesToFloat(const uint8_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    int16_t v;
    std::memcpy(&v, src + 2 * i, sizeof v);
    dst[i] = static_cast<float>(v) * kInt16Scale;
  }
}

// Rounds to nearest and saturates to [-32768, 32767]; NaN becomes -32768 (no UB).
inline void FloatToInt16(const float* src, int16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float v = src[i] * 32768.0f;
    v = v > -32768.0f ? v : -32768.0f;
    v = v < 32767.0f ? v : 32767.0f;
    dst[i] = static_cast<int16_t>(v + (v >= 0.0f ? 0.5f : -0.5f));
  }
}

}  // namespace gw
