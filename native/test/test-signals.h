// Signal helpers for the DSP tests: tones, least-squares tone fits, RMS.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace gwtest {

constexpr double kPi = 3.14159265358979323846;

inline std::vector<float> Tone(double freq, int rate, size_t n, double amp, double phase = 0.0) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(amp * std::sin(2.0 * kPi * freq * i / rate + phase));
  }
  return x;
}

struct ToneFit {
  double amplitude;
  double residual_rms;  // what is left after removing the fitted tone
};

// Least-squares fit of a*sin + b*cos at `freq` over x[begin, end), where sample i is at
// time (i) / rate.
inline ToneFit FitTone(const float* x, size_t begin, size_t end, double freq, int rate) {
  double ss = 0, sc = 0, cc = 0, xs = 0, xc = 0;
  for (size_t i = begin; i < end; ++i) {
    const double w = 2.0 * kPi * freq * i / rate;
    const double s = std::sin(w), c = std::cos(w);
    ss += s * s;
    sc += s * c;
    cc += c * c;
    xs += x[i] * s;
    xc += x[i] * c;
  }
  const double det = ss * cc - sc * sc;
  double a = 0, b = 0;
  if (std::fabs(det) > 1e-12) {
    a = (xs * cc - xc * sc) / det;
    b = (xc * ss - xs * sc) / det;
  }
  double r = 0;
  for (size_t i = begin; i < end; ++i) {
    const double w = 2.0 * kPi * freq * i / rate;
    const double e = x[i] - (a * std::sin(w) + b * std::cos(w));
    r += e * e;
  }
  return {std::sqrt(a * a + b * b), std::sqrt(r / static_cast<double>(end - begin))};
}

inline double Rms(const float* x, size_t begin, size_t end) {
  double s = 0;
  for (size_t i = begin; i < end; ++i) s += static_cast<double>(x[i]) * x[i];
  return std::sqrt(s / static_cast<double>(end - begin));
}

inline double Db(double ratio) { return 20.0 * std::log10(std::fmax(ratio, 1e-30)); }

// Signal-to-noise ratio of a tone fit, in dB: the fitted sine's RMS over the residual's.
inline double ToneSnrDb(const ToneFit& fit) {
  return Db(fit.amplitude / std::sqrt(2.0) / fit.residual_rms);
}

}  // namespace gwtest
