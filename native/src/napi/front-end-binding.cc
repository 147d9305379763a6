// frontEnd*: one handle per WebSocket connection (see dsp/stream-front-end.h).
//
// Lifetimes: push() reads the message bytes in place during the call only (uWebSockets.js
// may reuse the message's memory after its callback returns, and nothing here keeps a
// pointer). The Float64Array `state` passed to create() is referenced by the handle until
// close() and is rewritten after every push/setFormat/flush/clear/read/discard with the
// fields listed in StateField (mirrored by src/native/stream-front-end.ts).
#include "dsp/stream-front-end.h"
#include "napi/bindings.h"
#include "napi/event-copy.h"
#include "napi/napi-util.h"
#include "napi/vad-options.h"

namespace gwnapi {

namespace {

using gw::StreamFrontEnd;
constexpr napi_type_tag kTag = {0x6777a1b2c3d4e5f6ULL, 0x0000000000000007ULL};

enum StateField : size_t {
  kAppendedLast = 0,
  kDroppedLast,
  kBuffered,
  kReadPos,
  kWritePos,
  kPendingEvents,
  kDroppedEvents,
  kDroppedTotal,
  kPacketsDecoded,
  kPacketsRejected,
  kNoiseFloorDb,
  kLastEnergyDb,
  kInSpeech,
  kCapacity,
  kRejectedWavTag,
  kBytesIn,
  kStateLength,
};

struct FrontEndBox {
  std::unique_ptr<StreamFrontEnd> fe;
  Napi::Reference<Napi::Float64Array> state;
};

void WriteState(FrontEndBox* b) {
  Napi::Float64Array state = b->state.Value();
  // A detached (transferred) array has length 0: skip rather than write through a stale pointer.
  if (state.IsEmpty() || state.ElementLength() < kStateLength) return;
  double* s = state.Data();
  const StreamFrontEnd& fe = *b->fe;
  const auto& c = fe.counters();
  s[kAppendedLast] = static_cast<double>(c.appended_last);
  s[kDroppedLast] = static_cast<double>(c.dropped_last);
  s[kBuffered] = static_cast<double>(fe.ring().size());
  s[kReadPos] = static_cast<double>(fe.ring().read_pos());
  s[kWritePos] = static_cast<double>(fe.ring().write_pos());
  s[kPendingEvents] = static_cast<double>(b->fe->events().size());
  s[kDroppedEvents] = static_cast<double>(b->fe->events().dropped());
  s[kDroppedTotal] = static_cast<double>(c.dropped_total);
  s[kPacketsDecoded] = static_cast<double>(c.packets_decoded);
  s[kPacketsRejected] = static_cast<double>(c.packets_rejected);
  s[kNoiseFloorDb] = fe.vad() != nullptr ? fe.vad()->noise_floor_dbfs() : 0.0;
  s[kLastEnergyDb] = fe.vad() != nullptr ? fe.vad()->last_energy_dbfs() : 0.0;
  s[kInSpeech] = fe.endpointer() != nullptr && fe.endpointer()->in_speech() ? 1 : 0;
  s[kCapacity] = static_cast<double>(fe.ring().capacity());
  s[kRejectedWavTag] = fe.wav() != nullptr ? fe.wav()->rejected_format_tag() : 0;
  s[kBytesIn] = static_cast<double>(c.bytes_in);
}

bool ReadOptions(const Napi::Object& o, gw::FrontEndConfig* c) {
  int format = static_cast<int>(c->format);
  double max_samples = static_cast<double>(c->max_buffer_samples);
  double initial_samples = static_cast<double>(c->initial_buffer_samples);
  if (!OptionalInt(o, "format", &format) || !OptionalNumber(o, "maxBufferSamples", &max_samples) ||
      !OptionalNumber(o, "initialBufferSamples", &initial_samples) ||
      !OptionalInt(o, "webmDecodeRate", &c->webm_decode_rate) ||
      !OptionalBool(o, "energyVad", &c->energy_vad)) {
    return false;
  }
  if (!gw::IsAudioFormat(format) || max_samples < 1 || max_samples > 2147483648.0 ||
      initial_samples < 1 || initial_samples > 2147483648.0) {
    ThrowRange(o.Env(), "invalid format or buffer size");
    return false;
  }
  c->format = static_cast<gw::AudioFormat>(format);
  c->max_buffer_samples = static_cast<size_t>(max_samples);
  c->initial_buffer_samples = static_cast<size_t>(initial_samples);
  const Napi::Value vad = o.Get("vad");
  if (vad.IsObject() && !ReadEnergyVadOptions(vad.As<Napi::Object>(), &c->vad)) return false;
  const Napi::Value ep = o.Get("endpointer");
  if (ep.IsObject() && !ReadEndpointerOptions(ep.As<Napi::Object>(), &c->endpointer)) return false;
  const Napi::Value q = o.Get("quality");
  if (q.IsObject()) {
    const Napi::Object qo = q.As<Napi::Object>();
    if (!OptionalNumber(qo, "passFraction", &c->quality.pass_fraction) ||
        !OptionalNumber(qo, "stopFraction", &c->quality.stop_fraction) ||
        !OptionalNumber(qo, "attenuationDb", &c->quality.attenuation_db)) {
      return false;
    }
  }
  return true;
}

// (options, Float64Array state) -> handle
Napi::Value Create(const Napi::CallbackInfo& info) {
  gw::FrontEndConfig c;
  if (!info[0].IsObject()) {
    Napi::TypeError::New(info.Env(), "options must be an object").ThrowAsJavaScriptException();
    return {};
  }
  if (!ReadOptions(info[0].As<Napi::Object>(), &c)) return {};
  c.endpointer.hop_samples = c.vad.frame_samples;  // one probability per VAD frame
  double* state = nullptr;
  size_t state_len = 0;
  if (!GetFloat64(info, 1, &state, &state_len)) return {};
  if (state_len < kStateLength) {
    ThrowRange(info.Env(), "state array needs 16 elements");
    return {};
  }
  gw::Status status;
  auto fe = StreamFrontEnd::Create(c, &status);
  if (!fe) {
    ThrowRange(info.Env(), "invalid front-end options (VAD, endpointer or resampler settings)");
    return {};
  }
  auto box = std::make_unique<FrontEndBox>();
  box->fe = std::move(fe);
  box->state = Napi::Reference<Napi::Float64Array>::New(info[1].As<Napi::Float64Array>(), 1);
  WriteState(box.get());
  const int64_t bytes =
      static_cast<int64_t>(box->fe->ring().capacity() * sizeof(int16_t) + 64 * 1024);
  return MakeHandle(info.Env(), std::move(box), kTag, bytes);
}

// (handle, ArrayBuffer | typed array) -> status (0 ok; see src/native/native-status.ts)
Napi::Value Push(const Napi::CallbackInfo& info) {
  FrontEndBox* b = GetObject<FrontEndBox>(info, 0, kTag);
  Bytes msg;
  if (b == nullptr || !GetBytes(info, 1, &msg)) return {};
  const gw::Status s = b->fe->Push(msg.data, msg.size);
  WriteState(b);
  return Napi::Number::New(info.Env(), gw::ToInt(s));
}

// (handle, format code) -> status
Napi::Value SetFormat(const Napi::CallbackInfo& info) {
  FrontEndBox* b = GetObject<FrontEndBox>(info, 0, kTag);
  double format = 0;
  if (b == nullptr || !GetNumber(info, 1, &format)) return {};
  if (!gw::IsAudioFormat(static_cast<int32_t>(format)) || format != static_cast<int32_t>(format)) {
    ThrowRange(info.Env(), "unknown format code");
    return {};
  }
  const gw::Status s = b->fe->SetFormat(static_cast<gw::AudioFormat>(static_cast<int32_t>(format)));
  WriteState(b);
  return Napi::Number::New(info.Env(), gw::ToInt(s));
}

// (handle) -> status; end of input
Napi::Value Flush(const Napi::CallbackInfo& info) {
  FrontEndBox* b = GetObject<FrontEndBox>(info, 0, kTag);
  if (b == nullptr) return {};
  const gw::Status s = b->fe->Flush();
  WriteState(b);
  return Napi::Number::New(info.Env(), gw::ToInt(s));
}

Napi::Value Clear(const Napi::CallbackInfo& info) {
  FrontEndBox* b = GetObject<FrontEndBox>(info, 0, kTag);
  if (b == nullptr) return {};
  b->fe->Clear();
  WriteState(b);
  return info.Env().Undefined();
}

// (handle, Float32Array | Int16Array) -> samples read (consumed)
Napi::Value Read(const Napi::CallbackInfo& info) {
  FrontEndBox* b = GetObject<FrontEndBox>(info, 0, kTag);
  Samples s;
  if (b == nullptr || !GetSamples(info, 1, &s)) return {};
  gw::RingBuffer& ring = b->fe->ring();
  const size_t n = s.f32 != nullptr ? ring.ReadFloat(s.f32, s.len) : ring.Read(s.i16, s.len);
  WriteState(b);
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

// (handle, position, Float32Array | Int16Array) -> samples copied from max(position, readPos)
Napi::Value Peek(const Napi::CallbackInfo& info) {
  FrontEndBox* b = GetObject<FrontEndBox>(info, 0, kTag);
  uint64_t pos = 0;
  Samples s;
  if (b == nullptr || !GetPosition(info, 1, &pos) || !GetSamples(info, 2, &s)) return {};
  const gw::RingBuffer& ring = b->fe->ring();
  const size_t n = s.f32 != nullptr ? ring.PeekFloat(pos, s.f32, s.len, nullptr)
                                    : ring.Peek(pos, s.i16, s.len, nullptr);
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

// (handle, position) -> samples discarded
Napi::Value DiscardUntil(const Napi::CallbackInfo& info) {
  FrontEndBox* b = GetObject<FrontEndBox>(info, 0, kTag);
  uint64_t pos = 0;
  if (b == nullptr || !GetPosition(info, 1, &pos)) return {};
  const size_t n = b->fe->ring().DiscardUntil(pos);
  WriteState(b);
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

// (handle, Float64Array) -> events written (4 numbers each); the rest stay queued
Napi::Value TakeEvents(const Napi::CallbackInfo& info) {
  FrontEndBox* b = GetObject<FrontEndBox>(info, 0, kTag);
  double* out = nullptr;
  size_t cap = 0;
  if (b == nullptr || !GetFloat64(info, 1, &out, &cap)) return {};
  const size_t n = CopyEvents(&b->fe->events(), out, cap);
  WriteState(b);
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

Napi::Value Close(const Napi::CallbackInfo& info) { return CloseHandle<FrontEndBox>(info, kTag); }

}  // namespace

void RegisterFrontEnd(Napi::Env env, Napi::Object exports) {
  exports.Set("frontEndCreate", Napi::Function::New(env, Create));
  exports.Set("frontEndPush", Napi::Function::New(env, Push));
  exports.Set("frontEndSetFormat", Napi::Function::New(env, SetFormat));
  exports.Set("frontEndFlush", Napi::Function::New(env, Flush));
  exports.Set("frontEndClear", Napi::Function::New(env, Clear));
  exports.Set("frontEndRead", Napi::Function::New(env, Read));
  exports.Set("frontEndPeek", Napi::Function::New(env, Peek));
  exports.Set("frontEndDiscardUntil", Napi::Function::New(env, DiscardUntil));
  exports.Set("frontEndTakeEvents", Napi::Function::New(env, TakeEvents));
  exports.Set("frontEndClose", Napi::Function::New(env, Close));
}

}  // namespace gwnapi
