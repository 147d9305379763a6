#include "dsp/energy-vad.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gw {

namespace {
constexpr float kSilenceDb = -120.0f;
constexpr float kUnset = 1000.0f;  // above any dBFS value: "no minimum yet"
}  // namespace

Status EnergyVad::Validate(const EnergyVadConfig& c) {
  const bool ok = c.sample_rate >= 8000 && c.sample_rate <= 48000 && c.frame_samples >= 16 &&
                  c.frame_samples <= c.sample_rate / 10 && c.threshold_db > 0.0f &&
                  c.threshold_db <= 60.0f && c.slope_db > 0.01f && c.slope_db <= 20.0f &&
                  c.min_energy_dbfs >= -120.0f && c.min_energy_dbfs <= 0.0f &&
                  c.floor_min_dbfs >= -120.0f && c.floor_min_dbfs <= 0.0f &&
                  c.floor_window_s >= 0.2f && c.floor_window_s <= 60.0f &&
                  c.calibration_speech_dbfs >= -120.0f && c.calibration_speech_dbfs <= 0.0f;
  return ok ? Status::kOk : Status::kInvalidArgument;
}

EnergyVad::EnergyVad(const EnergyVadConfig& config)
    : config_(config), frame_(static_cast<size_t>(config.frame_samples)) {
  const double frames_per_window =
      config.floor_window_s * config.sample_rate / static_cast<double>(config.frame_samples);
  frames_per_sub_ = std::max(1, static_cast<int>(std::lround(frames_per_window / kSubWindows)));
  frames_per_window_ = std::max(1L, static_cast<long>(std::lround(frames_per_window)));
  Reset();
}

void EnergyVad::Reset() {
  pending_ = 0;
  sum_ = sum_sq_ = 0.0;
  // No estimate yet: sub-windows fill as frames arrive and the floor is the minimum of the
  // frames seen so far; the first window is also judged against the prior (calibration).
  std::fill(sub_min_, sub_min_ + kSubWindows, kUnset);
  sub_index_ = 0;
  sub_frames_ = 0;
  floor_db_ = kUnset;
  recent_count_ = 0;
  recent_index_ = 0;
  last_db_ = kSilenceDb;
  frames_seen_ = 0;
}

float EnergyVad::FinishFrame(double sum, double sum_squares) {
  // Variance rather than mean square: a DC offset (common in cheap capture chains) is not
  // energy.
  const double inv = 1.0 / static_cast<double>(frame_);
  const double dc = sum * inv;
  const double mean = sum_squares * inv - dc * dc;
  const float db = mean > 1e-12 ? static_cast<float>(10.0 * std::log10(mean)) : kSilenceDb;
  last_db_ = db;

  // Probability against the floor estimated from frames before this one; while calibrating,
  // against the prior floor too (whichever is lower), so a stream may start in speech.
  float reference = floor_db_;
  if (frames_seen_ < frames_per_window_) {
    ++frames_seen_;
    const float prior = config_.calibration_speech_dbfs - config_.threshold_db;
    reference = floor_db_ == kUnset ? prior : std::min(floor_db_, prior);
  }
  float p = 0.0f;
  if (db >= config_.min_energy_dbfs && reference != kUnset) {
    const float z = (db - reference - config_.threshold_db) / config_.slope_db;
    p = 1.0f / (1.0f + std::exp(-z));
  }

  // Minimum statistics over the average power of the last kSmoothFrames frames.
  recent_power_[recent_index_] = mean > 0.0 ? mean : 0.0;
  recent_index_ = (recent_index_ + 1) % kSmoothFrames;
  if (recent_count_ < kSmoothFrames) ++recent_count_;
  if (recent_count_ < kSmoothFrames) return p;
  double avg = 0.0;
  for (double v : recent_power_) avg += v;
  avg /= kSmoothFrames;
  const float avg_db = avg > 1e-12 ? static_cast<float>(10.0 * std::log10(avg)) : kSilenceDb;
  const float clamped = std::max(avg_db, config_.floor_min_dbfs);
  if (sub_frames_ == 0) {
    sub_min_[sub_index_] = clamped;
  } else {
    sub_min_[sub_index_] = std::min(sub_min_[sub_index_], clamped);
  }
  if (++sub_frames_ >= frames_per_sub_) {
    sub_frames_ = 0;
    sub_index_ = (sub_index_ + 1) % kSubWindows;
  }
  float floor = sub_min_[0];
  for (int k = 1; k < kSubWindows; ++k) floor = std::min(floor, sub_min_[k]);
  floor_db_ = floor;
  return p;
}

size_t EnergyVad::AddRun(double sum, double sum_squares, size_t samples, float* probs,
                         size_t frames) {
  sum_ += sum;
  sum_sq_ += sum_squares;
  pending_ += samples;
  if (pending_ == frame_) {
    probs[frames++] = FinishFrame(sum_, sum_sq_);
    pending_ = 0;
    sum_ = sum_sq_ = 0.0;
  }
  return frames;
}

size_t EnergyVad::Process(const float* x, size_t n, float* probs) {
  return Accumulate<double>(n, probs, 1.0, [x](size_t k) { return static_cast<double>(x[k]); });
}

// Sums in Acc (double for float input; int64 for 16-bit input, exact and vectorised), scaled to
// full scale = 1 per run: `scale` for the sum, scale² for the sum of squares.
template <typename Acc, typename Load>
size_t EnergyVad::Accumulate(size_t n, float* probs, double scale, Load load) {
  size_t frames = 0;
  size_t i = 0;
  while (i < n) {
    const size_t take = std::min(n - i, frame_ - pending_);
    Acc s = 0, s2 = 0;
#pragma omp simd reduction(+ : s, s2)
    for (size_t k = 0; k < take; ++k) {
      const auto v = load(i + k);
      s += v;
      s2 += v * v;
    }
    frames = AddRun(static_cast<double>(s) * scale, static_cast<double>(s2) * (scale * scale), take,
                    probs, frames);
    i += take;
  }
  return frames;
}

size_t EnergyVad::ProcessInt16(const int16_t* x, size_t n, float* probs) {
  return Accumulate<int64_t>(n, probs, 1.0 / 32768.0,
                             [x](size_t k) { return static_cast<int32_t>(x[k]); });
}

size_t EnergyVad::ProcessPcm16Bytes(const uint8_t* bytes, size_t n, float* probs) {
  return Accumulate<int64_t>(n, probs, 1.0 / 32768.0, [bytes](size_t k) {
    int16_t v;
    std::memcpy(&v, bytes + 2 * k, sizeof v);
    return static_cast<int32_t>(v);
  });
}

}  // namespace gw
