// Rational polyphase FIR resampler (float, mono), e.g. 48 kHz -> 16 kHz (L/M = 1/3),
// 44.1 kHz -> 16 kHz (160/441), 8 kHz -> 16 kHz (2/1).
//
// The prototype low-pass is a Kaiser-windowed sinc designed at in_rate * L with its
// passband edge at pass_fraction * min(in, out) and its stopband edge at
// stop_fraction * min(in, out). Defaults: passband 0..0.45 * min rate (7.2 kHz for a 16 kHz
// output), stopband from 0.5 * min rate (the output Nyquist: nothing aliases), 80 dB.
// Filter banks are immutable and shared between resamplers with the same rates.
//
// Timing: output sample m corresponds to input time m * in_rate / out_rate (the filter's
// group delay is compensated), so the first outputs appear once `latency_input()` input
// samples have arrived and Flush() emits the rest at end of stream.
//
// Process() never allocates: input is consumed in blocks through a buffer sized at create.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "dsp/simd-dot.h"

namespace gw {

struct ResamplerQuality {
  double pass_fraction = 0.45;
  double stop_fraction = 0.50;
  double attenuation_db = 80.0;
};

struct PolyphaseBank {
  int in_rate = 0;
  int out_rate = 0;
  int up = 1;     // L
  int down = 1;   // M
  int taps = 0;   // K, taps per phase (multiple of 8)
  int delay = 0;  // group delay of the prototype in upsampled samples
  // up rows of `taps` coefficients; row p holds h[p + (taps-1-j)*up] at column j so that
  // an output is a dot product with `taps` consecutive input samples.
  std::vector<float> coeffs;
};

class Resampler {
 public:
  static constexpr size_t kBlock = 2048;  // input samples per internal block
  static constexpr int kMaxUp = 1024;     // largest L after reduction
  static constexpr int kMinRate = 4000;
  static constexpr int kMaxRate = 384000;

  // Returns nullptr when the rates are out of range or need L > kMaxUp.
  static std::unique_ptr<Resampler> Create(int in_rate, int out_rate,
                                           const ResamplerQuality& quality = {});
  static bool Supports(int in_rate, int out_rate);
  // The shared bank for these rates (designed on first use).
  static std::shared_ptr<const PolyphaseBank> Bank(int in_rate, int out_rate,
                                                   const ResamplerQuality& quality = {});

  // Largest number of outputs that Process() can return for n inputs.
  size_t MaxOutput(size_t n) const;

  // Resamples n input samples into out (room for MaxOutput(n)); returns the output count.
  size_t Process(const float* in, size_t n, float* out);

  // Zero-copy variant: write up to kBlock samples at InputSlot(), then call ProcessSlot(n).
  float* InputSlot() { return buffer_.data() + history_; }
  size_t ProcessSlot(size_t n, float* out);

  // Emits the outputs still owed for the input seen so far (at most MaxOutput(latency)).
  size_t Flush(float* out);
  size_t FlushMaxOutput() const { return MaxOutput(latency_input() + 1); }
  void Reset();

  const PolyphaseBank& bank() const { return *bank_; }
  // Input samples that must arrive after time t before output for t can be computed.
  size_t latency_input() const;

 private:
  explicit Resampler(std::shared_ptr<const PolyphaseBank> bank);

  std::shared_ptr<const PolyphaseBank> bank_;
  DotFn dot_;
  Dot2Fn dot2_;
  size_t history_;             // taps - 1 samples kept between blocks
  std::vector<float> buffer_;  // [history | block]
  uint64_t t_ = 0;             // upsampled time of the next output, relative to block start
  uint64_t inputs_seen_ = 0;
  uint64_t outputs_made_ = 0;
};

}  // namespace gw
