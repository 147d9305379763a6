// Turns a stream of per-frame speech probabilities (energy VAD or Silero) into speech
// start/end events at absolute sample positions.
//
// - A turn starts when frames at or above start_threshold add up to min_speech_ms; a pause
//   of min(min_speech_ms, min_silence_ms) before that discards the candidate (so an isolated
//   click does not move the onset). The start event's position is the candidate's first
//   frame minus pre_pad_ms, never before the previous turn's end.
// - A turn ends after max(min_silence_ms, post_pad_ms) of frames below end_threshold; the
//   end position is the last speech frame's end plus post_pad_ms. The end event is emitted
//   only once that audio exists, so a consumer can cut [turn_start, position) at once.
// - max_speech_ms > 0 splits longer turns (end + start at the same position, flagged).
// Allocation-free; events go to an EventQueue.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dsp/endpoint-event.h"
#include "dsp/status.h"

namespace gw {

struct EndpointerConfig {
  int sample_rate = 16000;
  int hop_samples = 320;  // samples per probability (320 energy VAD, 512 Silero)
  float start_threshold = 0.5f;
  float end_threshold = 0.35f;
  int min_speech_ms = 200;
  int min_silence_ms = 500;
  int pre_pad_ms = 200;
  int post_pad_ms = 300;
  int max_speech_ms = 30000;  // 0 = unlimited
};

class Endpointer {
 public:
  static Status Validate(const EndpointerConfig& config);
  explicit Endpointer(const EndpointerConfig& config);

  // One probability for the frame [position(), position() + hop).
  void Push(float probability, EventQueue* events);
  // End of stream: closes an open turn at the current position.
  void Flush(EventQueue* events);
  // Forgets any turn in progress and continues from absolute position `position`.
  void ResetAt(uint64_t position);

  uint64_t position() const { return pos_; }
  bool in_speech() const { return state_ == State::kSpeech; }
  const EndpointerConfig& config() const { return config_; }

 private:
  enum class State { kSilence, kPending, kSpeech };
  uint64_t Samples(int ms) const;

  EndpointerConfig config_;
  uint64_t hop_, min_speech_, min_silence_, pre_pad_, post_pad_, max_speech_, end_wait_;
  uint64_t pending_gap_;
  State state_ = State::kSilence;
  uint64_t pos_ = 0;
  uint64_t onset_ = 0;       // first speech frame of a pending turn
  uint64_t voiced_ = 0;      // speech samples counted while pending
  uint64_t gap_ = 0;         // samples below end_threshold (pending or speech)
  uint64_t turn_start_ = 0;  // start position of the current turn (padding included)
  uint64_t voice_end_ = 0;   // end of the last speech frame in the current turn
  uint64_t last_end_ = 0;    // end position of the previous turn
};

}  // namespace gw
