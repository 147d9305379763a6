#include <random>
#include <vector>

#include "dsp/energy-vad.h"
#include "test-harness.h"
#include "test-signals.h"

using gw::EnergyVad;
using gw::EnergyVadConfig;
using namespace gwtest;

namespace {
std::vector<float> Noise(size_t n, double amp, unsigned seed, double dc = 0.0) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, amp);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(g(rng) + dc);
  return x;
}
}  // namespace

GW_TEST(EnergyVadSeparatesToneFromNoiseWithDcOffset) {
  EnergyVad vad(EnergyVadConfig{});
  // 2 s of noise at -50 dBFS riding on a large DC offset, 1 s of tone at -20 dBFS, 1 s noise.
  auto x = Noise(32000, 0.00316, 1, -0.12);
  const auto tone = Tone(300.0, 16000, 16000, 0.1 * std::sqrt(2.0));
  for (size_t i = 0; i < tone.size(); ++i) x.push_back(tone[i] - 0.12f);
  const auto tail = Noise(16000, 0.00316, 2, -0.12);
  x.insert(x.end(), tail.begin(), tail.end());
  std::vector<float> probs(vad.MaxFrames(x.size()));
  // Odd chunk sizes must not matter.
  size_t frames = 0;
  for (size_t at = 0; at < x.size(); at += 777) {
    frames +=
        vad.Process(x.data() + at, std::min<size_t>(777, x.size() - at), probs.data() + frames);
  }
  GW_CHECK_EQ(frames, x.size() / 320);
  int speech_in_noise = 0, speech_in_tone = 0;
  for (size_t f = 10; f < 100; ++f) speech_in_noise += probs[f] > 0.5f;
  for (size_t f = 101; f < 149; ++f) speech_in_tone += probs[f] > 0.5f;
  for (size_t f = 152; f < 200; ++f) speech_in_noise += probs[f] > 0.5f;
  GW_CHECK_EQ(speech_in_noise, 0);
  GW_CHECK_EQ(speech_in_tone, 48);
  GW_CHECK_NEAR(vad.noise_floor_dbfs(), -50.0, 4.0);
}

GW_TEST(EnergyVadStreamStartingInSpeechIsSpeechFromTheFirstFrame) {
  EnergyVad vad(EnergyVadConfig{});
  // A tone at -20 dBFS from sample 0 for 1 s, then 2 s of noise at -45 dBFS, then the tone.
  const auto tone = Tone(300.0, 16000, 16000, 0.1 * std::sqrt(2.0));
  std::vector<float> x(tone.begin(), tone.end());
  const auto noise = Noise(32000, 0.0056, 5);
  x.insert(x.end(), noise.begin(), noise.end());
  x.insert(x.end(), tone.begin(), tone.end());
  std::vector<float> probs(vad.MaxFrames(x.size()));
  const size_t frames = vad.Process(x.data(), x.size(), probs.data());
  GW_CHECK_EQ(frames, x.size() / 320);
  int speech_at_start = 0, speech_in_noise = 0, speech_later = 0;
  for (size_t f = 0; f < 50; ++f) speech_at_start += probs[f] > 0.5f;
  for (size_t f = 52; f < 150; ++f) speech_in_noise += probs[f] > 0.5f;
  for (size_t f = 151; f < 200; ++f) speech_later += probs[f] > 0.5f;
  GW_CHECK_EQ(speech_at_start, 50);
  GW_CHECK_EQ(speech_in_noise, 0);
  GW_CHECK_EQ(speech_later, 49);
}

GW_TEST(EnergyVadFollowsRisingNoise) {
  EnergyVadConfig cfg;
  EnergyVad vad(cfg);
  auto x = Noise(16000 * 2, 0.001, 3);          // -60 dBFS
  const auto loud = Noise(16000 * 6, 0.01, 4);  // -40 dBFS from t = 2 s
  x.insert(x.end(), loud.begin(), loud.end());
  std::vector<float> probs(vad.MaxFrames(x.size()));
  const size_t frames = vad.Process(x.data(), x.size(), probs.data());
  // Within one floor window after the change, the louder noise is the new floor.
  int late_speech = 0;
  for (size_t f = 100 + 200; f < frames; ++f) late_speech += probs[f] > 0.5f;
  GW_CHECK_EQ(late_speech, 0);
  GW_CHECK_NEAR(vad.noise_floor_dbfs(), -40.0, 4.0);
}

GW_TEST(EnergyVadInt16MatchesFloat) {
  EnergyVad a(EnergyVadConfig{}), b(EnergyVadConfig{});
  const auto x = Noise(16000, 0.05, 5);
  std::vector<int16_t> q(x.size());
  std::vector<float> xf(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    q[i] = static_cast<int16_t>(std::lround(std::fmax(-1.0, std::fmin(0.999, x[i])) * 32768.0));
    xf[i] = q[i] / 32768.0f;
  }
  std::vector<float> pa(50), pb(50);
  GW_CHECK_EQ(a.Process(xf.data(), xf.size(), pa.data()), 50u);
  GW_CHECK_EQ(b.ProcessInt16(q.data(), q.size(), pb.data()), 50u);
  for (size_t f = 0; f < 50; ++f) GW_CHECK_NEAR(pa[f], pb[f], 1e-4);
  GW_CHECK_NEAR(a.last_energy_dbfs(), b.last_energy_dbfs(), 1e-3);
}

GW_TEST(EnergyVadValidatesConfig) {
  EnergyVadConfig c;
  GW_CHECK(EnergyVad::Validate(c) == gw::Status::kOk);
  c.frame_samples = 4;
  GW_CHECK(EnergyVad::Validate(c) == gw::Status::kInvalidArgument);
  c = EnergyVadConfig{};
  c.threshold_db = -1;
  GW_CHECK(EnergyVad::Validate(c) == gw::Status::kInvalidArgument);
}
