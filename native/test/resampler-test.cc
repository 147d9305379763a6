#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "dsp/resampler.h"
#include "test-harness.h"
#include "test-signals.h"

using gw::Resampler;
using namespace gwtest;

namespace {

struct Figures {
  double ripple_db;       // peak-to-peak passband gain variation
  double max_gain_db;     // largest |gain| in the passband
  double attenuation_db;  // worst stopband (downsampling) or image (upsampling) rejection
};

std::vector<float> Run(int in_rate, int out_rate, const std::vector<float>& x) {
  auto r = Resampler::Create(in_rate, out_rate);
  std::vector<float> y(r->MaxOutput(x.size()) + r->FlushMaxOutput());
  size_t n = r->Process(x.data(), x.size(), y.data());
  n += r->Flush(y.data() + n);
  y.resize(n);
  return y;
}

// Sine sweeps through the resampler. Passband: tones from 20 Hz to 0.45 * min rate, gain
// from a least-squares fit at the tone's frequency. Stopband (downsampling): tones from the
// output Nyquist to the input Nyquist; every output sample is alias, so attenuation is input
// RMS over output RMS. Images (upsampling): passband tones' residual after removing the tone.
Figures Measure(int in_rate, int out_rate, int pass_points, int stop_points) {
  const double amp = 0.5;
  const size_t n_in = static_cast<size_t>(in_rate) / 4;  // 250 ms per tone
  const double min_rate = std::min(in_rate, out_rate);
  double gmin = 1e9, gmax = -1e9, worst = 1e9;
  for (int k = 0; k < pass_points; ++k) {
    const double f = 20.0 + (0.45 * min_rate - 20.0) * k / (pass_points - 1);
    const auto y = Run(in_rate, out_rate, Tone(f, in_rate, n_in, amp));
    const size_t edge = 100;
    const ToneFit fit = FitTone(y.data(), edge, y.size() - edge, f, out_rate);
    const double g = Db(fit.amplitude / amp);
    gmin = std::min(gmin, g);
    gmax = std::max(gmax, g);
    if (out_rate > in_rate) worst = std::min(worst, Db(amp / std::sqrt(2.0) / fit.residual_rms));
  }
  if (out_rate < in_rate) {
    for (int k = 0; k < stop_points; ++k) {
      const double f =
          0.5 * out_rate + (0.5 * in_rate - 0.5 * out_rate - 10.0) * k / (stop_points - 1);
      const auto y = Run(in_rate, out_rate, Tone(f, in_rate, n_in, amp));
      const size_t edge = 100;
      worst = std::min(worst, Db(amp / std::sqrt(2.0) / Rms(y.data(), edge, y.size() - edge)));
    }
  }
  return {gmax - gmin, std::max(std::fabs(gmin), std::fabs(gmax)), worst};
}

}  // namespace

GW_TEST(ResamplerPassbandRippleAndStopband) {
  const int pairs[][2] = {{48000, 16000}, {44100, 16000}, {32000, 16000},
                          {22050, 16000}, {8000, 16000},  {24000, 16000}};
  for (const auto& p : pairs) {
    const Figures fig = Measure(p[0], p[1], 60, 80);
    const auto bank = Resampler::Bank(p[0], p[1]);
    std::printf(
        "  RESAMPLER %d->%d (L/M %d/%d, %d taps/phase): passband ripple %.4f dB p-p "
        "(max |gain| %.4f dB), %s %.1f dB\n",
        p[0], p[1], bank->up, bank->down, bank->taps, fig.ripple_db, fig.max_gain_db,
        p[1] > p[0] ? "image rejection" : "stopband attenuation", fig.attenuation_db);
    GW_CHECK(fig.ripple_db < 0.01);
    GW_CHECK(fig.max_gain_db < 0.01);
    GW_CHECK(fig.attenuation_db > 78.0);
  }
}

GW_TEST(ResamplerIsTimeAligned) {
  // y[m] must match the ideal 16 kHz sampling of the same sine (delay compensated).
  for (int in_rate : {48000, 44100, 8000}) {
    const double f = 1000.0, amp = 0.5;
    const auto y = Run(in_rate, 16000, Tone(f, in_rate, static_cast<size_t>(in_rate), amp));
    const auto ideal = Tone(f, 16000, y.size(), amp);
    double err = 0;
    for (size_t m = 200; m + 200 < y.size(); ++m)
      err = std::max(err, std::fabs(double(y[m]) - ideal[m]));
    std::printf(
        "  RESAMPLER %d->16000 max error vs ideal 1 kHz sine: %.2e (%.1f dB re amplitude)\n",
        in_rate, err, Db(err / amp));
    GW_CHECK(err < amp * 1e-3);
  }
}

GW_TEST(ResamplerOutputCountAndChunkInvariance) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> noise(-0.5f, 0.5f);
  for (int in_rate : {48000, 44100, 22050, 8000}) {
    std::vector<float> x(23456);
    for (auto& v : x) v = noise(rng);
    const auto whole = Run(in_rate, 16000, x);
    // Every output owed for the input is emitted: ceil(n * 16000 / in_rate).
    const size_t expected = (x.size() * 16000 + in_rate - 1) / in_rate;
    GW_CHECK_EQ(whole.size(), expected);

    auto r = Resampler::Create(in_rate, 16000);
    std::vector<float> y(r->MaxOutput(x.size()) + r->FlushMaxOutput());
    size_t at = 0, n = 0;
    while (at < x.size()) {
      const size_t chunk = std::min<size_t>(x.size() - at, rng() % 5000);
      const size_t before = n;
      n += r->Process(x.data() + at, chunk, y.data() + n);
      GW_CHECK(n - before <= r->MaxOutput(chunk));
      at += chunk;
    }
    n += r->Flush(y.data() + n);
    GW_CHECK_EQ(n, whole.size());
    bool same = true;
    for (size_t i = 0; i < std::min(n, whole.size()); ++i) same = same && y[i] == whole[i];
    GW_CHECK(same);
  }
}

GW_TEST(ResamplerRejectsUnsupportedRates) {
  GW_CHECK(Resampler::Create(16001, 16000) == nullptr);  // L = 16000 > kMaxUp
  GW_CHECK(Resampler::Create(1000, 16000) == nullptr);
  GW_CHECK(Resampler::Create(48000, 16000) != nullptr);
  GW_CHECK(Resampler::Supports(11025, 16000));
  GW_CHECK(Resampler::Supports(96000, 16000));
  // Banks are shared.
  GW_CHECK(Resampler::Bank(48000, 16000).get() == Resampler::Bank(48000, 16000).get());
}
