#include <cstdint>
#include <random>
#include <vector>

#include "dsp/ring-buffer.h"
#include "test-harness.h"

using gw::RingBuffer;

GW_TEST(RingBufferWrapsAndKeepsOrder) {
  RingBuffer ring(8, 8);
  std::vector<int16_t> out(8);
  int16_t next_in = 0, next_out = 0;
  std::mt19937 rng(1);
  for (int round = 0; round < 1000; ++round) {
    const size_t w = rng() % 6;
    std::vector<int16_t> in(w);
    for (auto& v : in) v = next_in++;
    const size_t free_before = ring.free_space();
    const size_t wrote = ring.Write(in.data(), w);
    GW_CHECK_EQ(wrote, std::min(w, free_before));
    next_in = static_cast<int16_t>(next_in - (w - wrote));
    const size_t r = ring.Read(out.data(), rng() % 6);
    for (size_t i = 0; i < r; ++i) GW_CHECK_EQ(out[i], next_out++);
  }
  GW_CHECK_EQ(ring.grow_count(), 0u);
  GW_CHECK_EQ(ring.write_pos() - ring.read_pos(), ring.size());
}

GW_TEST(RingBufferGrowsToHardCapacityThenDrops) {
  RingBuffer ring(4, 100);
  std::vector<int16_t> in(30);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int16_t>(i);
  // Wrap first so that growth has to re-lay out a wrapped range.
  GW_CHECK_EQ(ring.Write(in.data(), 3), 3u);
  int16_t tmp[3];
  GW_CHECK_EQ(ring.Read(tmp, 2), 2u);
  GW_CHECK_EQ(ring.Write(in.data() + 3, 27), 27u);
  GW_CHECK(ring.capacity() >= 28);
  GW_CHECK(ring.grow_count() >= 1);
  std::vector<int16_t> out(28);
  GW_CHECK_EQ(ring.Read(out.data(), 28), 28u);
  for (size_t i = 0; i < 28; ++i) GW_CHECK_EQ(out[i], static_cast<int16_t>(i + 2));

  // Fill to the hard cap: the write stores what fits and reports it.
  std::vector<int16_t> big(150, 7);
  GW_CHECK_EQ(ring.Write(big.data(), 150), 100u);
  GW_CHECK_EQ(ring.size(), 100u);
  GW_CHECK_EQ(ring.capacity(), 100u);
  GW_CHECK_EQ(ring.Write(big.data(), 1), 0u);
  // Samples already stored survive.
  int16_t first = 0;
  GW_CHECK_EQ(ring.Read(&first, 1), 1u);
  GW_CHECK_EQ(first, 7);
}

GW_TEST(RingBufferPeekByAbsolutePosition) {
  RingBuffer ring(16, 16);
  std::vector<int16_t> in(40);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int16_t>(i * 10);
  for (int k = 0; k < 3; ++k) {
    ring.Write(in.data() + k * 10, 10);
    ring.DiscardUntil(ring.write_pos() - 6);
  }
  // Holds positions 24..29.
  GW_CHECK_EQ(ring.read_pos(), 24u);
  int16_t out[8];
  uint64_t first = 0;
  GW_CHECK_EQ(ring.Peek(26, out, 8, &first), 4u);
  GW_CHECK_EQ(first, 26u);
  GW_CHECK_EQ(out[0], 260);
  GW_CHECK_EQ(out[3], 290);
  // Before the read position: clamped.
  GW_CHECK_EQ(ring.Peek(3, out, 2, &first), 2u);
  GW_CHECK_EQ(first, 24u);
  GW_CHECK_EQ(out[0], 240);
  float f[2];
  GW_CHECK_EQ(ring.PeekFloat(29, f, 2, &first), 1u);
  GW_CHECK_NEAR(f[0], 290.0 / 32768.0, 1e-9);
  GW_CHECK_EQ(ring.size(), 6u);
}

GW_TEST(RingBufferFloatConversionRoundsAndSaturates) {
  RingBuffer ring(8, 8);
  const float in[6] = {0.5f, -0.5f, 2.0f, -2.0f, 1.0f / 65536.0f, std::nanf("")};
  GW_CHECK_EQ(ring.WriteFloat(in, 6), 6u);
  int16_t out[6];
  ring.Read(out, 6);
  GW_CHECK_EQ(out[0], 16384);
  GW_CHECK_EQ(out[1], -16384);
  GW_CHECK_EQ(out[2], 32767);
  GW_CHECK_EQ(out[3], -32768);
  GW_CHECK_EQ(out[4], 1);  // 0.5 LSB rounds away from zero
  GW_CHECK_EQ(out[5], -32768);
}

GW_TEST(RingBufferClearShrinksAndPositionsContinue) {
  RingBuffer ring(4, 64);
  std::vector<int16_t> in(50, 1);
  ring.Write(in.data(), 50);
  GW_CHECK(ring.capacity() >= 50);
  ring.Clear();
  GW_CHECK_EQ(ring.size(), 0u);
  GW_CHECK_EQ(ring.capacity(), 4u);
  GW_CHECK_EQ(ring.read_pos(), 50u);
  GW_CHECK_EQ(ring.write_pos(), 50u);
  const uint8_t bytes[5] = {0x01, 0x02, 0xFF, 0x7F, 0x00};
  GW_CHECK_EQ(ring.WritePcm16Bytes(bytes + 1, 2), 2u);  // unaligned source
  int16_t out[2];
  ring.Read(out, 2);
  GW_CHECK_EQ(out[0], static_cast<int16_t>(0xFF02));
  GW_CHECK_EQ(out[1], 0x007F);
}
