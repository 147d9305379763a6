// RealPowerSpectrum against a direct DFT for every kind of size it plans (radix 4, 2, the generic
// radices, odd n, n = 2), the sizes it refuses, and LogMel's frame count, reflection and log floor
// against a direct computation. src/engines/signal/features/log-mel-features.test.ts checks the
// addon against the TypeScript extractor and the numpy reference.
#include <cmath>
#include <random>
#include <vector>

#include "dsp/log-mel.h"
#include "dsp/real-fft.h"
#include "test-harness.h"

using gw::LogMel;
using gw::LogMelConfig;
using gw::RealPowerSpectrum;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<double> DirectPower(const std::vector<double>& x) {
  const size_t n = x.size();
  std::vector<double> power(n / 2 + 1);
  for (size_t k = 0; k < power.size(); ++k) {
    double re = 0, im = 0;
    for (size_t t = 0; t < n; ++t) {
      const double a = -2 * kPi * static_cast<double>(k * t % n) / static_cast<double>(n);
      re += x[t] * std::cos(a);
      im += x[t] * std::sin(a);
    }
    power[k] = re * re + im * im;
  }
  return power;
}

std::vector<double> RandomFrame(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(n);
  for (double& v : x) v = u(rng);
  return x;
}

}  // namespace

GW_TEST(RealPowerSpectrumMatchesTheDirectDft) {
  const size_t sizes[] = {2, 3, 4, 8, 12, 30, 64, 98, 195, 200, 286, 400, 480, 512, 2 * 11 * 13};
  for (size_t n : sizes) {
    auto fft = RealPowerSpectrum::Create(n);
    GW_CHECK(fft != nullptr);
    if (!fft) continue;
    GW_CHECK_EQ(fft->bins(), n / 2 + 1);
    const auto x = RandomFrame(n, static_cast<unsigned>(n));
    std::vector<double> power(fft->bins());
    fft->Power(x.data(), power.data());
    const auto want = DirectPower(x);
    for (size_t k = 0; k < power.size(); ++k)
      GW_CHECK_NEAR(power[k], want[k], 1e-9 * (1 + want[k]) * n);
  }
}

GW_TEST(RealPowerSpectrumRefusesLargePrimeFactors) {
  GW_CHECK(RealPowerSpectrum::Create(0) == nullptr);
  GW_CHECK(RealPowerSpectrum::Create(1) == nullptr);
  GW_CHECK(RealPowerSpectrum::Create(401) == nullptr);     // prime
  GW_CHECK(RealPowerSpectrum::Create(2 * 17) == nullptr);  // 17 points after packing
  GW_CHECK(RealPowerSpectrum::Create(4 * 17) == nullptr);
}

GW_TEST(LogMelFramesMatchADirectComputation) {
  // 2 mel channels over the 9 bins of n_fft 16, hop 5, a Hann window
  LogMelConfig config;
  config.n_fft = 16;
  config.hop = 5;
  config.power = 2;
  config.log_floor = 1e-6;
  config.window.resize(16);
  for (size_t i = 0; i < 16; ++i)
    config.window[i] = 0.5 - 0.5 * std::cos(2 * kPi * static_cast<double>(i) / 16);
  config.bank.assign(2 * 9, 0);
  for (size_t k = 1; k < 5; ++k) config.bank[k] = 0.25 * static_cast<double>(k);
  for (size_t k = 4; k < 9; ++k) config.bank[9 + k] = 1;
  config.bank_from = {1, 4};
  config.bank_to = {5, 9};
  const LogMelConfig kept = config;
  auto mel = LogMel::Create(config);
  GW_CHECK(mel != nullptr);
  if (!mel) return;
  std::vector<float> pcm(23);
  for (size_t i = 0; i < pcm.size(); ++i)
    pcm[i] = static_cast<float>(std::sin(0.7 * static_cast<double>(i)));
  for (bool center : {true, false}) {
    const size_t frames = mel->FrameCount(pcm.size(), center);
    GW_CHECK_EQ(frames, center ? size_t{1 + 23 / 5} : size_t{1 + (23 - 16) / 5});
    std::vector<float> out(frames * 2);
    mel->Compute(pcm.data(), pcm.size(), center, out.data());
    for (size_t t = 0; t < frames; ++t) {
      std::vector<double> frame(16);
      for (size_t i = 0; i < 16; ++i) {
        long long at = static_cast<long long>(t * 5 + i) - (center ? 8 : 0);
        if (at < 0) at = -at;           // reflection at the start
        if (at > 22) at = 2 * 22 - at;  // and at the end
        frame[i] = pcm[static_cast<size_t>(at)] * kept.window[i];
      }
      const auto power = DirectPower(frame);
      for (size_t m = 0; m < 2; ++m) {
        double sum = 0;
        for (int32_t k = kept.bank_from[m]; k < kept.bank_to[m]; ++k)
          sum += kept.bank[m * 9 + k] * power[k];
        GW_CHECK_NEAR(out[t * 2 + m], std::log(std::max(sum, 1e-6)), 1e-5);
      }
    }
  }
  // silence reads the log floor; input shorter than n_fft without centring is one zero-padded frame
  std::vector<float> quiet(3, 0.0f);
  GW_CHECK_EQ(mel->FrameCount(quiet.size(), false), size_t{1});
  std::vector<float> out(2);
  mel->Compute(quiet.data(), quiet.size(), false, out.data());
  GW_CHECK_NEAR(out[0], std::log(1e-6), 1e-6);
  GW_CHECK_NEAR(out[1], std::log(1e-6), 1e-6);
}

GW_TEST(LogMelRefusesInconsistentConfigs) {
  LogMelConfig config;
  config.n_fft = 16;
  config.hop = 4;
  config.window.assign(16, 1);
  config.bank.assign(9, 1);
  config.bank_from = {0};
  config.bank_to = {9};
  GW_CHECK(LogMel::Create(config) != nullptr);
  LogMelConfig bad = config;
  bad.bank_to = {10};  // past the last bin
  GW_CHECK(LogMel::Create(bad) == nullptr);
  bad = config;
  bad.window.assign(15, 1);
  GW_CHECK(LogMel::Create(bad) == nullptr);
  bad = config;
  bad.power = 3;
  GW_CHECK(LogMel::Create(bad) == nullptr);
  bad = config;
  bad.hop = 0;
  GW_CHECK(LogMel::Create(bad) == nullptr);
  bad = config;
  bad.n_fft = 34;  // 17 points
  bad.window.assign(34, 1);
  bad.bank.assign(18, 1);
  bad.bank_to = {18};
  GW_CHECK(LogMel::Create(bad) == nullptr);
}
