// Power spectrum of real frames of a fixed length n: |X[k]|^2 for k = 0..n/2, X the DFT of the
// frame (no scaling), in double precision. The native twin of
// src/engines/signal/features/real-fft.ts (mixed-radix method); the log-mel features are checked
// against that one (src/engines/signal/features/log-mel-features.test.ts).
//
// Rules:
// - n >= 2 whose prime factors are all at most 13 (400 = 2^4 * 5^2, 512, 480, ...); Create returns
//   null for any other n (the TypeScript one falls back to Bluestein there).
// - An even n is packed into a complex FFT of n/2 points (even samples real, odd samples
//   imaginary) and split afterwards; an odd n runs as a complex FFT of n points.
// - The complex FFT is recursive mixed-radix decimation in time (radix 4, 2, 3 and 5 butterflies
//   written out, a generic one for 7, 11 and 13), out of place, over a plan and twiddles
//   made by Create.
// - Power() allocates nothing and is not re-entrant (one instance per thread).
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <vector>

namespace gw {

class RealPowerSpectrum {
 public:
  static constexpr int kMaxPrime = 13;

  static std::unique_ptr<RealPowerSpectrum> Create(size_t n);

  size_t size() const { return n_; }
  size_t bins() const { return n_ / 2 + 1; }

  // frame: n samples; power: bins() values.
  void Power(const double* frame, double* power);

 private:
  using Complex = std::complex<double>;
  explicit RealPowerSpectrum(size_t n);

  // Complex DFT of points_ values read from `in` every `stride`, written to `out` in order.
  void Transform(Complex* out, const Complex* in, size_t stride, size_t factor_index) const;
  void Butterfly(Complex* out, size_t stride, size_t radix, size_t remaining) const;

  size_t n_;
  size_t points_;                 // n/2 (even n) or n (odd n)
  std::vector<size_t> factors_;   // radices, product = points_
  std::vector<Complex> twiddle_;  // exp(-2 pi i k / points_), k < points_
  std::vector<Complex> split_;    // even n: exp(-2 pi i k / n), k <= n/2
  mutable std::vector<Complex> scratch_;
  std::vector<Complex> packed_;
  std::vector<Complex> spectrum_;
};

}  // namespace gw
