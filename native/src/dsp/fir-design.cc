#include "dsp/fir-design.h"

#include <cmath>

namespace gw {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

double BesselI0(double x) {
  // sum_k ((x/2)^k / k!)^2 converges quickly for the betas used here (< 15).
  const double half = x / 2.0;
  double term = 1.0;
  double sum = 1.0;
  for (int k = 1; k < 200; ++k) {
    term *= half / k;
    const double sq = term * term;
    sum += sq;
    if (sq < sum * 1e-17) break;
  }
  return sum;
}

double KaiserBeta(double attenuation_db) {
  if (attenuation_db > 50.0) return 0.1102 * (attenuation_db - 8.7);
  if (attenuation_db >= 21.0) {
    return 0.5842 * std::pow(attenuation_db - 21.0, 0.4) + 0.07886 * (attenuation_db - 21.0);
  }
  return 0.0;
}

int KaiserLength(double attenuation_db, double transition_cycles) {
  const double n = (attenuation_db - 7.95) / (2.285 * 2.0 * kPi * transition_cycles);
  return static_cast<int>(std::ceil(n)) + 1;
}

std::vector<double> DesignLowpass(int length, double cutoff_cycles, double beta, double gain) {
  std::vector<double> h(static_cast<size_t>(length));
  const double center = (length - 1) / 2.0;
  const double i0_beta = BesselI0(beta);
  double sum = 0.0;
  for (int n = 0; n < length; ++n) {
    const double t = n - center;
    const double arg = 2.0 * cutoff_cycles * t;
    const double sinc = t == 0.0 ? 1.0 : std::sin(kPi * arg) / (kPi * arg);
    const double r = center > 0.0 ? t / center : 0.0;
    const double window = BesselI0(beta * std::sqrt(std::fmax(0.0, 1.0 - r * r))) / i0_beta;
    h[static_cast<size_t>(n)] = 2.0 * cutoff_cycles * sinc * window;
    sum += h[static_cast<size_t>(n)];
  }
  for (double& v : h) v *= gain / sum;
  return h;
}

}  // namespace gw
