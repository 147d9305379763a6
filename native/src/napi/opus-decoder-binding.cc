// opusDecoder*: libopus decoding on its own (mono float out).
#include "dsp/opus-frame-decoder.h"
#include "napi/bindings.h"
#include "napi/handle-class.h"
#include "napi/napi-util.h"

namespace gwnapi {

namespace {

using gw::OpusFrameDecoder;
using Decoder = HandleClass<OpusFrameDecoder, 3>;

// (sampleRate: 8000|12000|16000|24000|48000) -> handle
Napi::Value Create(const Napi::CallbackInfo& info) {
  double rate = 0;
  if (!GetNumber(info, 0, &rate)) return {};
  auto d = OpusFrameDecoder::Create(static_cast<int>(rate));
  if (!d || rate != static_cast<int>(rate)) {
    ThrowRange(info.Env(), "Opus decodes at 8000, 12000, 16000, 24000 or 48000 Hz");
    return {};
  }
  return Decoder::Make(info.Env(), std::move(d));
}

// (handle, packet bytes, Float32Array out) -> samples (>= 0) or -status
Napi::Value Decode(const Napi::CallbackInfo& info, OpusFrameDecoder* d) {
  Bytes packet;
  float* out = nullptr;
  size_t out_len = 0;
  if (!GetBytes(info, 1, &packet) || !GetFloat32(info, 2, &out, &out_len)) return {};
  if (out_len < d->max_frame_samples()) {
    ThrowRange(info.Env(), "output array shorter than maxFrameSamples");
    return {};
  }
  size_t n = 0;
  const gw::Status s = d->Decode(packet.data, packet.size, out, &n);
  if (s != gw::Status::kOk) return Napi::Number::New(info.Env(), -gw::ToInt(s));
  return Count(info.Env(), n);
}

// (handle, packet bytes) -> samples the packet decodes to, or -1 when malformed
Napi::Value PacketSamples(const Napi::CallbackInfo& info, OpusFrameDecoder* d) {
  Bytes packet;
  if (!GetBytes(info, 1, &packet)) return {};
  return Napi::Number::New(info.Env(), d->PacketSamples(packet.data, packet.size));
}

Napi::Value MaxFrameSamples(const Napi::CallbackInfo& info, OpusFrameDecoder* d) {
  return Count(info.Env(), d->max_frame_samples());
}

}  // namespace

void RegisterOpusDecoder(Napi::Env env, Napi::Object exports) {
  Decoder::Register<Decode, PacketSamples, MaxFrameSamples, CallReset<OpusFrameDecoder>>(
      env, exports, "opusDecoder", Create, {"Decode", "PacketSamples", "MaxFrameSamples", "Reset"});
}

}  // namespace gwnapi
