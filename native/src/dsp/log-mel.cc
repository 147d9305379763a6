#include "dsp/log-mel.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gw {

namespace {

// Index into a signal of `length` samples extended by mirror reflection (no edge repeat).
size_t ReflectIndex(long long i, size_t length) {
  if (length == 1) return 0;
  const long long period = 2 * (static_cast<long long>(length) - 1);
  long long j = i % period;
  if (j < 0) j += period;
  return static_cast<size_t>(j < static_cast<long long>(length) ? j : period - j);
}

}  // namespace

std::unique_ptr<LogMel> LogMel::Create(LogMelConfig config) {
  if (config.n_fft < 2 || config.hop == 0 || (config.power != 1 && config.power != 2))
    return nullptr;
  const size_t bins = config.n_fft / 2 + 1;
  const size_t mels = config.bank_from.size();
  if (mels == 0 || config.bank_to.size() != mels || config.window.size() != config.n_fft ||
      config.bank.size() != mels * bins) {
    return nullptr;
  }
  for (size_t m = 0; m < mels; ++m) {
    const int32_t from = config.bank_from[m];
    const int32_t to = config.bank_to[m];
    if (from < 0 || to < from || static_cast<size_t>(to) > bins) return nullptr;
  }
  auto fft = RealPowerSpectrum::Create(config.n_fft);
  if (!fft) return nullptr;
  return std::unique_ptr<LogMel>(new LogMel(std::move(config), std::move(fft)));
}

LogMel::LogMel(LogMelConfig config, std::unique_ptr<RealPowerSpectrum> fft)
    : config_(std::move(config)),
      mels_(config_.bank_from.size()),
      fft_(std::move(fft)),
      frame_(config_.n_fft),
      spectrum_(fft_->bins()) {}

size_t LogMel::FrameCount(size_t samples, bool center) const {
  if (center) return 1 + samples / config_.hop;
  return samples >= config_.n_fft ? 1 + (samples - config_.n_fft) / config_.hop : 1;
}

void LogMel::Compute(const float* pcm, size_t samples, bool center, float* out) {
  const size_t frames = FrameCount(samples, center);
  const size_t n_fft = config_.n_fft;
  const size_t bins = fft_->bins();
  const long long pad = center ? static_cast<long long>(n_fft / 2) : 0;
  const long long n = static_cast<long long>(samples);
  const double* window = config_.window.data();
  for (size_t t = 0; t < frames; ++t) {
    const long long first = static_cast<long long>(t * config_.hop) - pad;
    for (size_t i = 0; i < n_fft; ++i) {
      const long long at = first + static_cast<long long>(i);
      double x = 0;
      if (at >= 0 && at < n) {
        x = pcm[at];
      } else if (center && n > 0) {
        x = pcm[ReflectIndex(at, samples)];
      }
      frame_[i] = x * window[i];
    }
    fft_->Power(frame_.data(), spectrum_.data());
    if (config_.power == 1) {
      for (size_t k = 0; k < bins; ++k) spectrum_[k] = std::sqrt(spectrum_[k]);
    }
    float* row = out + t * mels_;
    for (size_t m = 0; m < mels_; ++m) {
      const double* weights = config_.bank.data() + m * bins;
      double sum = 0;
      for (int32_t k = config_.bank_from[m]; k < config_.bank_to[m]; ++k)
        sum += weights[k] * spectrum_[k];
      row[m] = static_cast<float>(std::log(std::max(sum, config_.log_floor)));
    }
  }
}

}  // namespace gw
