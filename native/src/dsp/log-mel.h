// Log-mel frames of a signal, the inner loop of src/engines/signal/features/log-mel-features.ts
// (LogMelExtractor.compute) in native code: the TypeScript side builds the window and the mel
// filterbank (written once there) and hands them over; this computes the frames.
//
// Rules (as the TypeScript extractor states them):
// - frames of n_fft samples every hop; with `center` the signal is reflect-padded by n_fft/2 on
//   both sides (numpy's "reflect": no edge repeat) and there are 1 + floor(samples / hop) frames,
//   without it 1 + floor((samples - n_fft) / hop), at least one (short input is zero-padded);
// - each frame times the window, |DFT|^power (power 1 or 2), the filterbank rows over the bins
//   [from, to) of each mel channel, then log(max(value, log_floor)), in double precision, written
//   as float;
// - no normalisation (the caller's).
// Compute() allocates nothing and is not re-entrant (one instance per thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "dsp/real-fft.h"

namespace gw {

struct LogMelConfig {
  size_t n_fft = 0;
  size_t hop = 0;
  int power = 2;
  double log_floor = 1e-10;
  std::vector<double> window;      // n_fft values
  std::vector<double> bank;        // n_mels rows of n_fft/2 + 1 weights
  std::vector<int32_t> bank_from;  // per mel channel: first bin with a weight
  std::vector<int32_t> bank_to;    // per mel channel: one past the last
};

class LogMel {
 public:
  // Null when the sizes disagree, hop or n_fft is 0, power is not 1 or 2, a bin range is out of
  // bounds, or n_fft has a prime factor above RealPowerSpectrum::kMaxPrime.
  static std::unique_ptr<LogMel> Create(LogMelConfig config);

  size_t mels() const { return mels_; }
  size_t FrameCount(size_t samples, bool center) const;

  // Writes FrameCount(samples, center) * mels() values, [frames][mels] row-major.
  void Compute(const float* pcm, size_t samples, bool center, float* out);

 private:
  LogMel(LogMelConfig config, std::unique_ptr<RealPowerSpectrum> fft);

  LogMelConfig config_;
  size_t mels_;
  std::unique_ptr<RealPowerSpectrum> fft_;
  std::vector<double> frame_;
  std::vector<double> spectrum_;
};

}  // namespace gw
