#include "dsp/wav-parser.h"

#include <algorithm>
#include <cstring>

#include "dsp/resampler.h"

namespace gw {

namespace {

uint16_t U16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t U32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

constexpr int kTagPcm = 1;
constexpr int kTagFloat = 3;
constexpr int kTagExtensible = 0xFFFE;
// KSDATAFORMAT_SUBTYPE_* GUIDs share these 14 bytes after the 2-byte format tag.
constexpr uint8_t kSubformatTail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80,
                                        0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};

}  // namespace

void WavParser::Reset() {
  state_ = State::kRiff;
  failure_ = Status::kOk;
  header_need_ = 12;
  header_have_ = 0;
  skip_left_ = fmt_extra_ = data_left_ = 0;
  data_unbounded_ = data_pad_ = has_format_ = false;
  rejected_tag_ = 0;
  format_ = WavFormat{};
  frame_have_ = 0;
}

Status WavParser::ParseFmt(const uint8_t* p, size_t n) {
  if (n < 16) return Fail(Status::kWavInvalid);
  WavFormat f;
  int tag = U16(p);
  f.channels = U16(p + 2);
  const uint32_t rate = U32(p + 4);
  f.block_align = U16(p + 12);
  f.bits = U16(p + 14);
  if (tag == kTagExtensible) {
    if (n < 40 || U16(p + 16) < 22) return Fail(Status::kWavInvalid);
    const uint8_t* guid = p + 24;
    tag = U16(guid);
    if (std::memcmp(guid + 2, kSubformatTail, sizeof kSubformatTail) != 0) {
      rejected_tag_ = kTagExtensible;
      return Fail(Status::kWavNotPcm);
    }
  }
  if (tag != kTagPcm && tag != kTagFloat) {
    rejected_tag_ = tag;
    return Fail(Status::kWavNotPcm);
  }
  f.format_tag = tag;
  if (f.channels < 1 || f.channels > 8) return Fail(Status::kWavUnsupportedChannels);
  const bool bits_ok = tag == kTagPcm
                           ? (f.bits == 8 || f.bits == 16 || f.bits == 24 || f.bits == 32)
                           : (f.bits == 32 || f.bits == 64);
  if (!bits_ok) return Fail(Status::kWavUnsupportedBitDepth);
  if (f.block_align != f.channels * f.bits / 8) return Fail(Status::kWavInvalid);
  if (rate < static_cast<uint32_t>(kMinRate) || rate > static_cast<uint32_t>(kMaxRate) ||
      !Resampler::Supports(static_cast<int>(rate), 16000)) {
    return Fail(Status::kWavUnsupportedSampleRate);
  }
  f.sample_rate = static_cast<int>(rate);
  format_ = f;
  has_format_ = true;
  return Status::kOk;
}

void WavParser::ConvertFrames(const uint8_t* p, size_t frames, float* out) const {
  const int channels = format_.channels;
  const float mix = 1.0f / static_cast<float>(channels);
  const size_t stride = static_cast<size_t>(format_.block_align);
  const int bytes = format_.bits / 8;
  for (size_t f = 0; f < frames; ++f) {
    const uint8_t* frame = p + f * stride;
    float sum = 0.0f;
    for (int c = 0; c < channels; ++c) {
      const uint8_t* s = frame + c * bytes;
      float v;
      if (format_.format_tag == kTagFloat) {
        if (bytes == 4) {
          float x;
          std::memcpy(&x, s, 4);
          v = x;
        } else {
          double x;
          std::memcpy(&x, s, 8);
          v = static_cast<float>(x);
        }
      } else {
        switch (bytes) {
          case 1:
            v = (static_cast<float>(s[0]) - 128.0f) * (1.0f / 128.0f);
            break;
          case 2:
            v = static_cast<float>(static_cast<int16_t>(U16(s))) * (1.0f / 32768.0f);
            break;
          case 3: {
            const int32_t x = static_cast<int32_t>(static_cast<uint32_t>(s[0]) << 8 |
                                                   static_cast<uint32_t>(s[1]) << 16 |
                                                   static_cast<uint32_t>(s[2]) << 24);
            v = static_cast<float>(x) * (1.0f / 2147483648.0f);
            break;
          }
          default:
            v = static_cast<float>(static_cast<int32_t>(U32(s))) * (1.0f / 2147483648.0f);
            break;
        }
      }
      sum += v;
    }
    out[f] = channels == 1 ? sum : sum * mix;
  }
}

Status WavParser::DeliverFrames(const uint8_t* p, size_t frames, WavSampleSink* sink) {
  Status first = Status::kOk;
  while (frames > 0) {
    const size_t take = std::min(frames, kBlockFrames);
    ConvertFrames(p, take, block_);
    const Status s = sink->OnSamples(block_, take);
    if (s != Status::kOk && first == Status::kOk) first = s;
    p += take * static_cast<size_t>(format_.block_align);
    frames -= take;
  }
  return first;
}

Status WavParser::Push(const uint8_t* data, size_t n, WavSampleSink* sink) {
  if (failure_ != Status::kOk) return failure_;
  Status sink_status = Status::kOk;
  auto note = [&sink_status](Status s) {
    if (s != Status::kOk && sink_status == Status::kOk) sink_status = s;
  };
  size_t i = 0;
  while (i < n) {
    switch (state_) {
      case State::kRiff:
      case State::kChunkHeader:
      case State::kRiffTail:
      case State::kFmt: {
        const size_t take = std::min(n - i, header_need_ - header_have_);
        std::memcpy(header_ + header_have_, data + i, take);
        header_have_ += take;
        i += take;
        if (header_have_ < header_need_) break;
        header_have_ = 0;
        if (state_ == State::kRiff) {
          if (std::memcmp(header_, "RIFF", 4) != 0 || std::memcmp(header_ + 8, "WAVE", 4) != 0) {
            return Fail(Status::kWavInvalid);
          }
          state_ = State::kChunkHeader;
          header_need_ = 8;
        } else if (state_ == State::kRiffTail) {
          if (std::memcmp(header_, "WAVE", 4) != 0) return Fail(Status::kWavInvalid);
          state_ = State::kChunkHeader;
          header_need_ = 8;
        } else if (state_ == State::kFmt) {
          const Status s = ParseFmt(header_, header_need_);
          if (s != Status::kOk) return s;
          note(sink->OnFormat(format_));
          skip_left_ = fmt_extra_;
          state_ = skip_left_ > 0 ? State::kSkip : State::kChunkHeader;
          header_need_ = 8;
        } else {
          const uint32_t size = U32(header_ + 4);
          if (std::memcmp(header_, "fmt ", 4) == 0) {
            if (size < 16) return Fail(Status::kWavInvalid);
            header_need_ = std::min<size_t>(size, sizeof header_);
            fmt_extra_ = size - header_need_ + (size & 1);
            has_format_ = false;
            state_ = State::kFmt;
          } else if (std::memcmp(header_, "data", 4) == 0) {
            if (!has_format_) return Fail(Status::kWavInvalid);
            data_unbounded_ = size == 0 || size == 0xFFFFFFFFu;
            data_left_ = size;
            data_pad_ = (size & 1) != 0;
            frame_have_ = 0;
            state_ = State::kData;
          } else if (std::memcmp(header_, "RIFF", 4) == 0) {
            // A new file follows the previous one's data.
            has_format_ = false;
            header_need_ = 4;
            state_ = State::kRiffTail;
          } else {
            skip_left_ = static_cast<uint64_t>(size) + (size & 1);
            state_ = skip_left_ > 0 ? State::kSkip : State::kChunkHeader;
          }
        }
        break;
      }
      case State::kSkip: {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(skip_left_, n - i));
        i += take;
        skip_left_ -= take;
        if (skip_left_ == 0) {
          state_ = State::kChunkHeader;
          header_need_ = 8;
        }
        break;
      }
      case State::kData: {
        size_t avail = n - i;
        if (!data_unbounded_) avail = static_cast<size_t>(std::min<uint64_t>(avail, data_left_));
        const size_t align = static_cast<size_t>(format_.block_align);
        size_t used = 0;
        if (frame_have_ > 0) {
          const size_t take = std::min(avail, align - frame_have_);
          std::memcpy(frame_ + frame_have_, data + i, take);
          frame_have_ += take;
          used += take;
          if (frame_have_ == align) {
            note(DeliverFrames(frame_, 1, sink));
            frame_have_ = 0;
          }
        }
        const size_t whole = (avail - used) / align;
        if (whole > 0) {
          note(DeliverFrames(data + i + used, whole, sink));
          used += whole * align;
        }
        const size_t rest = avail - used;
        if (rest > 0) {  // rest < align: keep the partial frame
          std::memcpy(frame_ + frame_have_, data + i + used, rest);
          frame_have_ += rest;
          used += rest;
        }
        i += used;
        if (!data_unbounded_) {
          data_left_ -= used;
          if (data_left_ == 0) {
            frame_have_ = 0;  // a trailing partial frame in a finished chunk is dropped
            skip_left_ = data_pad_ ? 1 : 0;
            state_ = skip_left_ > 0 ? State::kSkip : State::kChunkHeader;
            header_need_ = 8;
          }
        }
        break;
      }
    }
  }
  return sink_status;
}

}  // namespace gw
