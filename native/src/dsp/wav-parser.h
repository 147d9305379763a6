// Streaming WAV (RIFF/WAVE) parser: PCM 8/16/24/32-bit integer and 32/64-bit IEEE float,
// plain or WAVE_FORMAT_EXTENSIBLE, 1..8 channels, 8..192 kHz. Other codecs (mu-law, A-law,
// ADPCM, MP3 in WAV, ...) are rejected with kWavNotPcm. Input may be split at any byte.
//
// Output is mono float (channels averaged) at the file's rate, handed to the sink in
// blocks of at most kBlockFrames. A data chunk of size 0 or 0xFFFFFFFF (streaming writers)
// runs to the end of the stream. After a data chunk of known size, further chunks are
// skipped and a new "RIFF" header starts a new file (clients that send one WAV per message).
// Header errors are sticky until Reset().
//
// Buffers: sample pointers given to the sink point into the parser's block buffer (sized at
// construction) and are valid only during the call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dsp/status.h"

namespace gw {

struct WavFormat {
  int format_tag = 0;  // 1 PCM or 3 IEEE float (extensible resolved to its sub-format)
  int channels = 0;
  int sample_rate = 0;
  int bits = 0;  // container bits per sample
  int block_align = 0;
};

class WavSampleSink {
 public:
  virtual ~WavSampleSink() = default;
  // Called when a fmt chunk is accepted (once per file).
  virtual Status OnFormat(const WavFormat& format) = 0;
  virtual Status OnSamples(const float* mono, size_t n) = 0;
};

class WavParser {
 public:
  static constexpr size_t kBlockFrames = 1024;
  static constexpr int kMinRate = 8000;
  static constexpr int kMaxRate = 192000;

  Status Push(const uint8_t* data, size_t n, WavSampleSink* sink);
  void Reset();

  const WavFormat& format() const { return format_; }
  bool has_format() const { return has_format_; }
  // The format tag of a rejected fmt chunk (for error messages); 0 when none.
  int rejected_format_tag() const { return rejected_tag_; }

 private:
  enum class State { kRiff, kChunkHeader, kRiffTail, kFmt, kSkip, kData };

  Status Fail(Status s) { return failure_ = s; }
  Status ParseFmt(const uint8_t* p, size_t n);
  void ConvertFrames(const uint8_t* p, size_t frames, float* out) const;
  Status DeliverFrames(const uint8_t* p, size_t frames, WavSampleSink* sink);

  State state_ = State::kRiff;
  Status failure_ = Status::kOk;
  uint8_t header_[64];
  size_t header_need_ = 12, header_have_ = 0;
  uint64_t skip_left_ = 0;
  uint64_t fmt_extra_ = 0;  // fmt bytes beyond what is read, plus the pad byte
  uint64_t data_left_ = 0;
  bool data_unbounded_ = false;
  bool data_pad_ = false;
  bool has_format_ = false;
  int rejected_tag_ = 0;
  WavFormat format_;
  uint8_t frame_[64];  // a frame split across Push() calls
  size_t frame_have_ = 0;
  float block_[kBlockFrames];
};

}  // namespace gw
