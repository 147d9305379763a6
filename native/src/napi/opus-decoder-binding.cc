// opusDecoder*: libopus decoding on its own (mono float out).
#include "dsp/opus-frame-decoder.h"
#include "napi/bindings.h"
#include "napi/napi-util.h"

namespace gwnapi {

namespace {

using gw::OpusFrameDecoder;
constexpr napi_type_tag kTag = {0x6777a1b2c3d4e5f6ULL, 0x0000000000000003ULL};

// (sampleRate: 8000|12000|16000|24000|48000) -> handle
Napi::Value Create(const Napi::CallbackInfo& info) {
  double rate = 0;
  if (!GetNumber(info, 0, &rate)) return {};
  auto d = OpusFrameDecoder::Create(static_cast<int>(rate));
  if (!d || rate != static_cast<int>(rate)) {
    ThrowRange(info.Env(), "Opus decodes at 8000, 12000, 16000, 24000 or 48000 Hz");
    return {};
  }
  return MakeHandle(info.Env(), std::move(d), kTag, 0);
}

// (handle, packet bytes, Float32Array out) -> samples (>= 0) or -status
Napi::Value Decode(const Napi::CallbackInfo& info) {
  OpusFrameDecoder* d = GetObject<OpusFrameDecoder>(info, 0, kTag);
  Bytes packet;
  float* out = nullptr;
  size_t out_len = 0;
  if (d == nullptr || !GetBytes(info, 1, &packet) || !GetFloat32(info, 2, &out, &out_len))
    return {};
  if (out_len < d->max_frame_samples()) {
    ThrowRange(info.Env(), "output array shorter than maxFrameSamples");
    return {};
  }
  size_t n = 0;
  const gw::Status s = d->Decode(packet.data, packet.size, out, &n);
  if (s != gw::Status::kOk) return Napi::Number::New(info.Env(), -gw::ToInt(s));
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

// (handle, packet bytes) -> samples the packet decodes to, or -1 when malformed
Napi::Value PacketSamples(const Napi::CallbackInfo& info) {
  OpusFrameDecoder* d = GetObject<OpusFrameDecoder>(info, 0, kTag);
  Bytes packet;
  if (d == nullptr || !GetBytes(info, 1, &packet)) return {};
  return Napi::Number::New(info.Env(), d->PacketSamples(packet.data, packet.size));
}

Napi::Value MaxFrameSamples(const Napi::CallbackInfo& info) {
  OpusFrameDecoder* d = GetObject<OpusFrameDecoder>(info, 0, kTag);
  if (d == nullptr) return {};
  return Napi::Number::New(info.Env(), static_cast<double>(d->max_frame_samples()));
}

Napi::Value Reset(const Napi::CallbackInfo& info) {
  OpusFrameDecoder* d = GetObject<OpusFrameDecoder>(info, 0, kTag);
  if (d != nullptr) d->Reset();
  return info.Env().Undefined();
}

Napi::Value Close(const Napi::CallbackInfo& info) {
  return CloseHandle<OpusFrameDecoder>(info, kTag);
}

}  // namespace

void RegisterOpusDecoder(Napi::Env env, Napi::Object exports) {
  exports.Set("opusDecoderCreate", Napi::Function::New(env, Create));
  exports.Set("opusDecoderDecode", Napi::Function::New(env, Decode));
  exports.Set("opusDecoderPacketSamples", Napi::Function::New(env, PacketSamples));
  exports.Set("opusDecoderMaxFrameSamples", Napi::Function::New(env, MaxFrameSamples));
  exports.Set("opusDecoderReset", Napi::Function::New(env, Reset));
  exports.Set("opusDecoderClose", Napi::Function::New(env, Close));
}

}  // namespace gwnapi
