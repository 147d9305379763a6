#include "dsp/real-fft.h"

#include <cmath>

namespace gw {

namespace {

constexpr double kPi = 3.14159265358979323846;

// a * b without the C99 Annex G checks for infinities that std::complex's operator* makes (a
// library call per product unless -ffast-math).
inline std::complex<double> Mul(std::complex<double> a, std::complex<double> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// Radices of n, 4s first, then 2, then odd primes up to kMaxPrime; empty if n has a larger one.
std::vector<size_t> Factor(size_t n) {
  std::vector<size_t> factors;
  while (n % 4 == 0) {
    factors.push_back(4);
    n /= 4;
  }
  while (n % 2 == 0) {
    factors.push_back(2);
    n /= 2;
  }
  for (size_t p = 3; p <= static_cast<size_t>(RealPowerSpectrum::kMaxPrime); p += 2) {
    while (n % p == 0) {
      factors.push_back(p);
      n /= p;
    }
  }
  if (n != 1) factors.clear();
  return factors;
}

}  // namespace

std::unique_ptr<RealPowerSpectrum> RealPowerSpectrum::Create(size_t n) {
  if (n < 2) return nullptr;
  const size_t points = n % 2 == 0 ? n / 2 : n;
  if (points > 1 && Factor(points).empty()) return nullptr;
  return std::unique_ptr<RealPowerSpectrum>(new RealPowerSpectrum(n));
}

RealPowerSpectrum::RealPowerSpectrum(size_t n)
    : n_(n),
      points_(n % 2 == 0 ? n / 2 : n),
      factors_(Factor(points_)),
      twiddle_(points_),
      scratch_(kMaxPrime),
      packed_(points_),
      spectrum_(points_) {
  for (size_t k = 0; k < points_; ++k) {
    const double a = -2 * kPi * static_cast<double>(k) / static_cast<double>(points_);
    twiddle_[k] = Complex(std::cos(a), std::sin(a));
  }
  if (n % 2 == 0) {
    split_.resize(points_ + 1);
    for (size_t k = 0; k <= points_; ++k) {
      const double a = -2 * kPi * static_cast<double>(k) / static_cast<double>(n);
      split_[k] = Complex(std::cos(a), std::sin(a));
    }
  }
}

void RealPowerSpectrum::Power(const double* frame, double* power) {
  if (n_ % 2 == 0) {
    for (size_t k = 0; k < points_; ++k) packed_[k] = Complex(frame[2 * k], frame[2 * k + 1]);
  } else {
    for (size_t k = 0; k < points_; ++k) packed_[k] = Complex(frame[k], 0);
  }
  if (factors_.empty()) {
    spectrum_[0] = packed_[0];  // one point
  } else {
    Transform(spectrum_.data(), packed_.data(), 1, 0);
  }
  if (n_ % 2 != 0) {
    for (size_t k = 0; k < bins(); ++k) power[k] = std::norm(spectrum_[k]);
    return;
  }
  // X[k] = E[k] + W^k O[k]: E and O, the DFTs of the even and odd samples, from Z and conj Z[N-k]
  for (size_t k = 0; k <= points_; ++k) {
    const Complex z = spectrum_[k % points_];
    const Complex mirror = std::conj(spectrum_[(points_ - k) % points_]);
    const Complex even = 0.5 * (z + mirror);
    const Complex diff = z - mirror;
    const Complex odd(0.5 * diff.imag(), -0.5 * diff.real());  // (z - mirror) / 2i
    power[k] = std::norm(even + Mul(split_[k], odd));
  }
}

void RealPowerSpectrum::Transform(Complex* out, const Complex* in, size_t stride,
                                  size_t factor_index) const {
  const size_t radix = factors_[factor_index];
  const size_t remaining = points_ / (stride * radix);
  if (remaining == 1) {
    for (size_t q = 0; q < radix; ++q) out[q] = in[q * stride];
  } else {
    for (size_t q = 0; q < radix; ++q) {
      Transform(out + q * remaining, in + q * stride, stride * radix, factor_index + 1);
    }
  }
  Butterfly(out, stride, radix, remaining);
}

// Combines `radix` transforms of `remaining` points each (out[q * remaining + u]) into one;
// twiddle_[u * stride] is exp(-2 pi i u / (radix * remaining)).
void RealPowerSpectrum::Butterfly(Complex* out, size_t stride, size_t radix,
                                  size_t remaining) const {
  const Complex* tw = twiddle_.data();
  const size_t m = remaining;
  if (radix == 2) {
    for (size_t u = 0; u < m; ++u) {
      const Complex t = Mul(out[u + m], tw[u * stride]);
      out[u + m] = out[u] - t;
      out[u] += t;
    }
    return;
  }
  if (radix == 4) {
    for (size_t u = 0; u < m; ++u) {
      const Complex s0 = Mul(out[u + m], tw[u * stride]);
      const Complex s1 = Mul(out[u + 2 * m], tw[2 * u * stride]);
      const Complex s2 = Mul(out[u + 3 * m], tw[3 * u * stride]);
      const Complex s5 = out[u] - s1;
      const Complex first = out[u] + s1;
      const Complex s3 = s0 + s2;
      const Complex s4 = s0 - s2;
      out[u] = first + s3;
      out[u + 2 * m] = first - s3;
      out[u + m] = Complex(s5.real() + s4.imag(), s5.imag() - s4.real());      // s5 - i s4
      out[u + 3 * m] = Complex(s5.real() - s4.imag(), s5.imag() + s4.real());  // s5 + i s4
    }
    return;
  }
  if (radix == 3) {
    const double sin60 = -std::sin(2 * kPi / 3);  // exp(-2 pi i / 3) = -1/2 + i sin60
    for (size_t u = 0; u < m; ++u) {
      const Complex s1 = Mul(out[u + m], tw[u * stride]);
      const Complex s2 = Mul(out[u + 2 * m], tw[2 * u * stride]);
      const Complex sum = s1 + s2;
      const Complex diff = sin60 * (s1 - s2);
      const Complex mid = out[u] - 0.5 * sum;
      out[u] += sum;
      out[u + m] = Complex(mid.real() - diff.imag(), mid.imag() + diff.real());
      out[u + 2 * m] = Complex(mid.real() + diff.imag(), mid.imag() - diff.real());
    }
    return;
  }
  if (radix == 5) {
    const Complex ya(std::cos(2 * kPi / 5), -std::sin(2 * kPi / 5));
    const Complex yb(std::cos(4 * kPi / 5), -std::sin(4 * kPi / 5));
    for (size_t u = 0; u < m; ++u) {
      const Complex s0 = out[u];
      const Complex s1 = Mul(out[u + m], tw[u * stride]);
      const Complex s2 = Mul(out[u + 2 * m], tw[2 * u * stride]);
      const Complex s3 = Mul(out[u + 3 * m], tw[3 * u * stride]);
      const Complex s4 = Mul(out[u + 4 * m], tw[4 * u * stride]);
      const Complex s7 = s1 + s4;
      const Complex s10 = s1 - s4;
      const Complex s8 = s2 + s3;
      const Complex s9 = s2 - s3;
      out[u] = s0 + s7 + s8;
      const Complex s5 = s0 + ya.real() * s7 + yb.real() * s8;
      const Complex s6(s10.imag() * ya.imag() + s9.imag() * yb.imag(),
                       -s10.real() * ya.imag() - s9.real() * yb.imag());
      out[u + m] = s5 - s6;
      out[u + 4 * m] = s5 + s6;
      const Complex s11 = s0 + yb.real() * s7 + ya.real() * s8;
      const Complex s12(-s10.imag() * yb.imag() + s9.imag() * ya.imag(),
                        s10.real() * yb.imag() - s9.real() * ya.imag());
      out[u + 2 * m] = s11 + s12;
      out[u + 3 * m] = s11 - s12;
    }
    return;
  }
  // generic radix (7, 11, 13): the twiddle and the radix-point DFT in one sum. Output q1's
  // twiddle step is stride * (u + q1 * m) = stride * u + q1 * points / radix, below points.
  const size_t per_output = points_ / radix;
  for (size_t u = 0; u < m; ++u) {
    for (size_t q = 0; q < radix; ++q) scratch_[q] = out[u + q * m];
    for (size_t q1 = 0; q1 < radix; ++q1) {
      const size_t step = stride * u + q1 * per_output;
      size_t index = 0;
      Complex sum = scratch_[0];
      for (size_t q = 1; q < radix; ++q) {
        index += step;
        if (index >= points_) index -= points_;
        sum += Mul(scratch_[q], tw[index]);
      }
      out[u + q1 * m] = sum;
    }
  }
}

}  // namespace gw
