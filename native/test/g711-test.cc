// G.711 expansion (dsp/g711.h) against the decoder output values of ITU-T G.711 Tables 1 and 2,
// and the alaw_8k / mulaw_8k front-end formats end to end.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "dsp/g711.h"
#include "dsp/stream-front-end.h"
#include "front-end-test-util.h"
#include "test-harness.h"
#include "test-signals.h"

using gw::AlawToLinear;
using gw::AudioFormat;
using gw::G711Law;
using gw::MulawToLinear;
using gw::Status;
using namespace gwtest;

namespace {

// Decoder output of a positive code in each segment, first and last step, in the units of the
// Recommendation's tables (A-law: 13-bit values scaled by 8 to 16 bits; mu-law: 14-bit values
// scaled by 4).
struct SegmentEnds {
  int first;
  int last;
};
constexpr SegmentEnds kAlawSegments[8] = {{1, 31},    {33, 63},    {66, 126},    {132, 252},
                                          {264, 504}, {528, 1008}, {1056, 2016}, {2112, 4032}};
constexpr SegmentEnds kMulawSegments[8] = {{0, 30},    {33, 93},     {99, 219},    {231, 471},
                                           {495, 975}, {1023, 1983}, {2079, 3999}, {4191, 8031}};

// The code as sent on the line for a positive value in segment s, step q (A-law: sign bit 1 after
// the even bits are inverted back; mu-law: sign bit 0 after every bit is inverted back).
uint8_t AlawCode(int s, int q) { return static_cast<uint8_t>((0x80 | (s << 4) | q) ^ 0x55); }
uint8_t MulawCode(int s, int q) { return static_cast<uint8_t>(~((s << 4) | q) & 0xff); }

// The code whose expansion is nearest to x (a G.711 quantiser by exhaustive search).
uint8_t Nearest(G711Law law, float x) {
  const int16_t* table = gw::G711Table(law);
  const double target = x * 32768.0;
  int best = 0;
  for (int c = 1; c < 256; ++c) {
    if (std::fabs(table[c] - target) < std::fabs(table[best] - target)) best = c;
  }
  return static_cast<uint8_t>(best);
}

}  // namespace

GW_TEST(G711AlawMatchesTheRecommendationsTable) {
  // Segment ends of Table 1 (positive and negative), and the four codes every G.711 text
  // quotes: 0xD5 and 0x55 are the smallest steps, 0xAA and 0x2A the largest.
  for (int s = 0; s < 8; ++s) {
    GW_CHECK_EQ(AlawToLinear(AlawCode(s, 0)), 8 * kAlawSegments[s].first);
    GW_CHECK_EQ(AlawToLinear(AlawCode(s, 15)), 8 * kAlawSegments[s].last);
    GW_CHECK_EQ(AlawToLinear(AlawCode(s, 0) ^ 0x80), -8 * kAlawSegments[s].first);
  }
  GW_CHECK_EQ(AlawToLinear(0xD5), 8);
  GW_CHECK_EQ(AlawToLinear(0x55), -8);
  GW_CHECK_EQ(AlawToLinear(0xAA), 32256);
  GW_CHECK_EQ(AlawToLinear(0x2A), -32256);
  // Within a segment the steps are equal: 16 in segment 0 and 1, doubling after.
  for (int s = 0; s < 8; ++s) {
    const int step = s <= 1 ? 16 : 16 << (s - 1);
    for (int q = 1; q < 16; ++q) {
      GW_CHECK_EQ(AlawToLinear(AlawCode(s, q)) - AlawToLinear(AlawCode(s, q - 1)), step);
    }
  }
}

GW_TEST(G711MulawMatchesTheRecommendationsTable) {
  for (int s = 0; s < 8; ++s) {
    GW_CHECK_EQ(MulawToLinear(MulawCode(s, 0)), 4 * kMulawSegments[s].first);
    GW_CHECK_EQ(MulawToLinear(MulawCode(s, 15)), 4 * kMulawSegments[s].last);
    GW_CHECK_EQ(MulawToLinear(MulawCode(s, 15) ^ 0x80), -4 * kMulawSegments[s].last);
    const int step = 8 << s;
    for (int q = 1; q < 16; ++q) {
      GW_CHECK_EQ(MulawToLinear(MulawCode(s, q)) - MulawToLinear(MulawCode(s, q - 1)), step);
    }
  }
  // Both zeros, and the extremes.
  GW_CHECK_EQ(MulawToLinear(0xFF), 0);
  GW_CHECK_EQ(MulawToLinear(0x7F), 0);
  GW_CHECK_EQ(MulawToLinear(0x80), 32124);
  GW_CHECK_EQ(MulawToLinear(0x00), -32124);
  // Codes inside segments (the values of Sun's audio table and of ffmpeg's pcm_mulaw).
  GW_CHECK_EQ(MulawToLinear(0x0F), -16764);
  GW_CHECK_EQ(MulawToLinear(0x8F), 16764);
  GW_CHECK_EQ(MulawToLinear(0xFE), 8);
  GW_CHECK_EQ(MulawToLinear(0x7E), -8);
  GW_CHECK_EQ(MulawToLinear(0xF0), 120);
  GW_CHECK_EQ(MulawToLinear(0xE0), 372);
  GW_CHECK_EQ(MulawToLinear(0x70), -120);
}

GW_TEST(G711TablesAreOddSymmetricAndOrdered) {
  for (const G711Law law : {G711Law::kAlaw, G711Law::kMulaw}) {
    const int16_t* t = gw::G711Table(law);
    std::vector<int> positive;
    for (int c = 0; c < 256; ++c) {
      GW_CHECK_EQ(t[c], law == G711Law::kAlaw ? AlawToLinear(static_cast<uint8_t>(c))
                                              : MulawToLinear(static_cast<uint8_t>(c)));
      GW_CHECK_EQ(t[c ^ 0x80], -t[c]);
    }
    // Positive magnitudes in segment/step order are strictly increasing (mu-law's two zeros
    // excepted: its sign-1 step 0 of segment 0 is the positive zero).
    int previous = -1;
    for (int s = 0; s < 8; ++s) {
      for (int q = 0; q < 16; ++q) {
        const int v = law == G711Law::kAlaw ? t[AlawCode(s, q)] : t[MulawCode(s, q)];
        GW_CHECK(v > previous);
        previous = v;
      }
    }
  }
  std::vector<float> f(256);
  std::vector<uint8_t> codes(256);
  for (int c = 0; c < 256; ++c) codes[c] = static_cast<uint8_t>(c);
  gw::G711ToFloat(G711Law::kAlaw, codes.data(), f.data(), codes.size());
  for (int c = 0; c < 256; ++c) GW_CHECK_EQ(f[c], AlawToLinear(static_cast<uint8_t>(c)) / 32768.0f);
}

// A 1013 Hz tone (not a divisor of the rate, so its samples meet many codes) quantised to G.711
// at 8 kHz, pushed in uneven messages: 16 kHz out, as long as the input (with the resampler's
// tail at END), and the tone at G.711's signal-to-noise ratio.
GW_TEST(FrontEndG711At8kHz) {
  for (const auto& [format, law] : {std::pair{AudioFormat::kAlaw8k, G711Law::kAlaw},
                                    std::pair{AudioFormat::kMulaw8k, G711Law::kMulaw}}) {
    auto fe = MakeFrontEnd(format);
    const auto x = Tone(1013.0, 8000, 8000, 0.5);
    std::vector<uint8_t> codes(x.size());
    for (size_t i = 0; i < x.size(); ++i) codes[i] = Nearest(law, x[i]);
    const auto y = PushFlushDrain(fe.get(), codes, 7, 3000);
    GW_CHECK_EQ(y.size(), 16000u);
    const ToneFit fit = FitTone(y.data(), 200, y.size() - 200, 1013.0, 16000);
    GW_CHECK_NEAR(fit.amplitude, 0.5, 0.005);
    // G.711 is about 38 dB for a loud tone; upsampling adds nothing measurable.
    GW_CHECK(ToneSnrDb(fit) > 33.0);
    GW_CHECK_EQ(fe->counters().bytes_in, 8000u);
  }
}

// FORMAT from A-law to 16 kHz PCM hands out the 8 kHz resampler's tail first; back to A-law
// starts a fresh resampler (the same bytes give the same samples).
GW_TEST(FrontEndG711FormatChangeDrainsTheTail) {
  auto fe = MakeFrontEnd(AudioFormat::kAlaw8k);
  const auto x = Tone(440.0, 8000, 4000, 0.3);
  std::vector<uint8_t> codes(x.size());
  for (size_t i = 0; i < x.size(); ++i) codes[i] = Nearest(G711Law::kAlaw, x[i]);
  GW_CHECK_STATUS(fe->Push(codes.data(), codes.size()), Status::kOk);
  GW_CHECK_STATUS(fe->SetFormat(AudioFormat::kPcmS16le), Status::kOk);
  const auto first = DrainFrontEnd(fe.get());
  GW_CHECK_EQ(first.size(), 8000u);
  GW_CHECK_STATUS(fe->SetFormat(AudioFormat::kAlaw8k), Status::kOk);
  GW_CHECK_STATUS(fe->Push(codes.data(), codes.size()), Status::kOk);
  GW_CHECK_STATUS(fe->Flush(), Status::kOk);
  const auto second = DrainFrontEnd(fe.get());
  GW_CHECK_EQ(second.size(), first.size());
  for (size_t i = 0; i < first.size(); ++i) GW_CHECK_EQ(second[i], first[i]);
}
