#include "dsp/endpointer.h"

#include <algorithm>

namespace gw {

Status Endpointer::Validate(const EndpointerConfig& c) {
  const bool ok = c.sample_rate >= 8000 && c.sample_rate <= 48000 && c.hop_samples >= 16 &&
                  c.hop_samples <= c.sample_rate && c.start_threshold > 0.0f &&
                  c.start_threshold < 1.0f && c.end_threshold > 0.0f &&
                  c.end_threshold <= c.start_threshold && c.min_speech_ms >= 0 &&
                  c.min_speech_ms <= 10000 && c.min_silence_ms >= 100 &&
                  c.min_silence_ms <= 10000 && c.pre_pad_ms >= 0 && c.pre_pad_ms <= 2000 &&
                  c.post_pad_ms >= 0 && c.post_pad_ms <= 2000 && c.max_speech_ms >= 0 &&
                  c.max_speech_ms <= 600000 && (c.max_speech_ms == 0 || c.max_speech_ms >= 1000);
  return ok ? Status::kOk : Status::kInvalidArgument;
}

uint64_t Endpointer::Samples(int ms) const {
  return static_cast<uint64_t>(ms) * static_cast<uint64_t>(config_.sample_rate) / 1000u;
}

Endpointer::Endpointer(const EndpointerConfig& config) : config_(config) {
  hop_ = static_cast<uint64_t>(config.hop_samples);
  min_speech_ = Samples(config.min_speech_ms);
  min_silence_ = Samples(config.min_silence_ms);
  pre_pad_ = Samples(config.pre_pad_ms);
  post_pad_ = Samples(config.post_pad_ms);
  max_speech_ = Samples(config.max_speech_ms);
  end_wait_ = std::max(min_silence_, post_pad_);
  pending_gap_ = std::max(hop_, std::min(min_speech_, min_silence_));
}

void Endpointer::ResetAt(uint64_t position) {
  state_ = State::kSilence;
  pos_ = position;
  voiced_ = gap_ = 0;
  last_end_ = position;
}

void Endpointer::Push(float p, EventQueue* events) {
  const uint64_t frame_end = pos_ + hop_;
  switch (state_) {
    case State::kSilence:
      if (p >= config_.start_threshold) {
        state_ = State::kPending;
        onset_ = pos_;
        voiced_ = 0;
        gap_ = 0;
      } else {
        break;
      }
      [[fallthrough]];
    case State::kPending:
      if (p >= config_.start_threshold) {
        voiced_ += hop_;
        gap_ = 0;
        voice_end_ = frame_end;
      } else if (p >= config_.end_threshold) {
        gap_ = 0;  // in between: keeps the candidate alive without counting
      } else {
        gap_ += hop_;
        if (gap_ >= pending_gap_) {  // an isolated blip: forget it
          state_ = State::kSilence;
          break;
        }
      }
      if (voiced_ >= min_speech_ && voiced_ > 0) {
        const uint64_t padded = onset_ >= pre_pad_ ? onset_ - pre_pad_ : 0;
        turn_start_ = std::max(padded, last_end_);
        state_ = State::kSpeech;
        gap_ = 0;
        events->Push({EventType::kSpeechStart, kFlagNone, turn_start_, turn_start_});
      }
      break;
    case State::kSpeech:
      if (p >= config_.end_threshold) {
        gap_ = 0;
        voice_end_ = frame_end;
      } else {
        gap_ += hop_;
        if (gap_ >= end_wait_) {
          const uint64_t end = std::max(turn_start_, std::min(voice_end_ + post_pad_, frame_end));
          events->Push({EventType::kSpeechEnd, kFlagNone, end, turn_start_});
          last_end_ = end;
          state_ = State::kSilence;
          break;
        }
      }
      if (max_speech_ > 0 && frame_end - turn_start_ >= max_speech_) {
        events->Push({EventType::kSpeechEnd, kFlagForcedSplit, frame_end, turn_start_});
        events->Push({EventType::kSpeechStart, kFlagForcedSplit, frame_end, frame_end});
        turn_start_ = frame_end;
        last_end_ = frame_end;
      }
      break;
  }
  pos_ = frame_end;
}

void Endpointer::Flush(EventQueue* events) {
  if (state_ == State::kSpeech) {
    const uint64_t end = std::max(turn_start_, std::min(voice_end_ + post_pad_, pos_));
    events->Push({EventType::kSpeechEnd, kFlagEndOfStream, end, turn_start_});
    last_end_ = end;
  }
  state_ = State::kSilence;
  voiced_ = gap_ = 0;
}

}  // namespace gw
