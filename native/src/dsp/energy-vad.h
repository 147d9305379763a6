// Frame-energy voice activity detector with an adaptive noise floor.
//
// Each frame's energy (dBFS, variance: a DC offset does not count) is compared with a noise
// floor that follows the minimum of the 100 ms (kSmoothFrames) average energy over a sliding
// window (minimum statistics: fast to follow falling
// noise, and rising noise is picked up within one window even during long speech). Until
// the window has filled, the floor is the minimum of the frames seen so far. The floor
// never drops below `floor_min_dbfs`, so digital silence does not make every later sound
// look like speech. The output per frame is a speech probability:
//   p = logistic((energy - floor - threshold_db) / slope_db), and 0 below min_energy_dbfs,
// which the Endpointer turns into speech start/end events.
//
// Calibration: a stream may start in speech (a call joined mid-sentence, a file that starts
// with a word), and then the frames seen so far are speech, not noise. So until one floor
// window of frames has been seen, a frame is also judged against a prior floor of
// `calibration_speech_dbfs - threshold_db`: anything at or above calibration_speech_dbfs
// (a speaking voice, well above room noise) counts as speech from the first frame on,
// while quieter noise is judged against the floor learned so far as before.
// Allocation-free after construction; input may arrive in any chunk sizes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dsp/status.h"

namespace gw {

struct EnergyVadConfig {
  int sample_rate = 16000;
  int frame_samples = 320;                 // 20 ms
  float threshold_db = 9.0f;               // energy above the floor where p = 0.5
  float slope_db = 2.0f;                   // logistic width
  float min_energy_dbfs = -50.0f;          // never speech below this
  float floor_min_dbfs = -75.0f;           // lowest noise floor
  float floor_window_s = 3.0f;             // minimum-statistics window
  float calibration_speech_dbfs = -40.0f;  // p = 0.5 here until one window is seen
};

class EnergyVad {
 public:
  static constexpr int kSubWindows = 12;
  // The floor follows averages over this many frames, so that one near-silent frame (a
  // codec's first output, a dropout) does not pin it far below the real noise.
  static constexpr int kSmoothFrames = 5;

  // Returns kInvalidArgument for out-of-range settings (checked by Validate()).
  static Status Validate(const EnergyVadConfig& config);
  explicit EnergyVad(const EnergyVadConfig& config);

  // Feeds samples; writes one probability per completed frame into probs (room for
  // MaxFrames(n)); returns the number of frames completed.
  size_t Process(const float* x, size_t n, float* probs);
  size_t ProcessInt16(const int16_t* x, size_t n, float* probs);
  // n little-endian 16-bit samples from bytes of any alignment.
  size_t ProcessPcm16Bytes(const uint8_t* bytes, size_t n, float* probs);
  size_t MaxFrames(size_t n) const { return (pending_ + n) / frame_; }

  // Forgets the partial frame (the noise floor is kept).
  void DropPartialFrame() { pending_ = 0, sum_ = sum_sq_ = 0.0; }
  void Reset();

  float noise_floor_dbfs() const { return floor_db_; }
  float last_energy_dbfs() const { return last_db_; }
  const EnergyVadConfig& config() const { return config_; }

 private:
  float FinishFrame(double sum, double sum_squares);
  // Adds the sums of `samples` samples of the open frame; when the frame is full, writes its
  // probability to probs[frames] and starts the next. Returns the frames written so far.
  size_t AddRun(double sum, double sum_squares, size_t samples, float* probs, size_t frames);
  template <typename Acc, typename Load>
  size_t Accumulate(size_t n, float* probs, double scale, Load load);

  EnergyVadConfig config_;
  size_t frame_;
  size_t pending_ = 0;   // samples in the current partial frame
  double sum_ = 0.0;     // their sum (full scale = 1.0)
  double sum_sq_ = 0.0;  // and sum of squares
  double recent_power_[kSmoothFrames];
  int recent_count_ = 0;
  int recent_index_ = 0;
  // Minimum statistics: minima of kSubWindows consecutive sub-windows.
  float sub_min_[kSubWindows];
  int sub_index_ = 0;
  int sub_frames_ = 0;
  int frames_per_sub_ = 1;
  float floor_db_;
  float last_db_ = -120.0f;
  long frames_seen_ = 0;
  long frames_per_window_ = 1;
};

}  // namespace gw
