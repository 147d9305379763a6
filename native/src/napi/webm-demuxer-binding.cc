// webmDemuxer*: the WebM demuxer on its own; frames are copied out into caller arrays.
#include <cstring>

#include "dsp/webm-demuxer.h"
#include "napi/bindings.h"
#include "napi/handle-class.h"
#include "napi/napi-util.h"

namespace gwnapi {

namespace {

// Copies each frame into the arrays of the current push call (set before, cleared after).
// DiscardPadding is not passed on: the stereo decoder this serves keeps a file's last packet
// whole (at most one packet of encoder padding at the very end).
class CopySink final : public gw::WebmFrameSink {
 public:
  gw::Status OnAudioTrack(const gw::WebmAudioTrack&) override { return gw::Status::kOk; }
  gw::Status OnFrame(const uint8_t* data, size_t len, uint64_t /*discard_ns*/) override {
    if (frames == frame_cap || used + len > bytes_cap) {
      overflow = true;
      return gw::Status::kInvalidArgument;
    }
    std::memcpy(bytes + used, data, len);
    lengths[frames++] = static_cast<int32_t>(len);
    used += len;
    return gw::Status::kOk;
  }
  uint8_t* bytes = nullptr;
  size_t bytes_cap = 0, used = 0;
  int32_t* lengths = nullptr;
  size_t frame_cap = 0, frames = 0;
  bool overflow = false;
};

struct Demuxer {
  explicit Demuxer(size_t max_block) : demuxer(max_block) {}
  void Reset() { demuxer.Reset(); }
  gw::WebmDemuxer demuxer;
  CopySink sink;
};
using Handle = HandleClass<Demuxer, 4>;

// (maxBlockBytes?) -> handle
Napi::Value Create(const Napi::CallbackInfo& info) {
  double max_block = gw::WebmDemuxer::kDefaultMaxBlockBytes;
  if (info.Length() > 0 && !info[0].IsUndefined() && !GetNumber(info, 0, &max_block)) return {};
  if (max_block < 1024 || max_block > (1 << 24)) {
    ThrowRange(info.Env(), "maxBlockBytes must be between 1 KiB and 16 MiB");
    return {};
  }
  auto d = std::make_unique<Demuxer>(static_cast<size_t>(max_block));
  return Handle::Make(info.Env(), std::move(d), static_cast<int64_t>(max_block));
}

// (handle, chunk, Uint8Array frameBytes, Int32Array frameLengths) -> frames (>= 0) or -status.
// Frames that do not fit the output arrays are dropped and -2 (kInvalidArgument) returned.
Napi::Value Push(const Napi::CallbackInfo& info, Demuxer* d) {
  Bytes chunk;
  uint8_t* bytes = nullptr;
  int32_t* lengths = nullptr;
  size_t bytes_cap = 0, frame_cap = 0;
  if (!GetBytes(info, 1, &chunk) || !GetUint8(info, 2, &bytes, &bytes_cap) ||
      !GetInt32(info, 3, &lengths, &frame_cap)) {
    return {};
  }
  CopySink& sink = d->sink;
  sink.bytes = bytes;
  sink.bytes_cap = bytes_cap;
  sink.used = 0;
  sink.lengths = lengths;
  sink.frame_cap = frame_cap;
  sink.frames = 0;
  sink.overflow = false;
  const gw::Status s = d->demuxer.Push(chunk.data, chunk.size, &sink);
  sink.bytes = nullptr;
  sink.lengths = nullptr;
  if (s != gw::Status::kOk) return Napi::Number::New(info.Env(), -gw::ToInt(s));
  return Count(info.Env(), sink.frames);
}

// (handle) -> { number, channels, preSkip, outputGainQ8, samplingFrequency, codecDelayNs } | null
Napi::Value Track(const Napi::CallbackInfo& info, Demuxer* d) {
  if (!d->demuxer.has_audio_track()) return info.Env().Null();
  const gw::WebmAudioTrack& t = d->demuxer.audio_track();
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("number", static_cast<double>(t.number));
  o.Set("channels", t.channels);
  o.Set("preSkip", t.pre_skip);
  o.Set("outputGainQ8", t.output_gain_q8);
  o.Set("samplingFrequency", t.sampling_frequency);
  o.Set("codecDelayNs", static_cast<double>(t.codec_delay_ns));
  return o;
}

}  // namespace

void RegisterWebmDemuxer(Napi::Env env, Napi::Object exports) {
  Handle::Register<Push, Track, CallReset<Demuxer>>(env, exports, "webmDemuxer", Create,
                                                    {"Push", "Track", "Reset"});
}

}  // namespace gwnapi
