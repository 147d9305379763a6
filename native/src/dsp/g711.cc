#include "dsp/g711.h"

#include <array>

#include "dsp/sample-convert.h"

namespace gw {

int16_t AlawToLinear(uint8_t code) {
  const int a = code ^ 0x55;
  const int segment = (a >> 4) & 0x07;
  const int step = a & 0x0f;
  const int magnitude = segment == 0 ? 8 * (2 * step + 1) : (8 * (2 * step + 33)) << (segment - 1);
  return static_cast<int16_t>((a & 0x80) != 0 ? magnitude : -magnitude);
}

int16_t MulawToLinear(uint8_t code) {
  const int u = ~code & 0xff;
  const int segment = (u >> 4) & 0x07;
  const int step = u & 0x0f;
  const int magnitude = ((2 * step + 33) << (segment + 2)) - 132;
  return static_cast<int16_t>((u & 0x80) != 0 ? -magnitude : magnitude);
}

namespace {

using Table = std::array<int16_t, 256>;

template <int16_t (*Expand)(uint8_t)>
Table MakeTable() {
  Table t{};
  for (int code = 0; code < 256; ++code) t[code] = Expand(static_cast<uint8_t>(code));
  return t;
}

}  // namespace

const int16_t* G711Table(G711Law law) {
  // Function-local statics: built once, thread-safe (C++11).
  static const Table alaw = MakeTable<AlawToLinear>();
  static const Table mulaw = MakeTable<MulawToLinear>();
  return law == G711Law::kAlaw ? alaw.data() : mulaw.data();
}

void G711ToFloat(G711Law law, const uint8_t* codes, float* out, size_t n) {
  const int16_t* table = G711Table(law);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(table[codes[i]]) * kInt16Scale;
}

}  // namespace gw
