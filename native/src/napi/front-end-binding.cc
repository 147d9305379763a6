// frontEnd*: one handle per WebSocket connection (see dsp/stream-front-end.h).
//
// Lifetimes: push() reads the message bytes in place during the call only (uWebSockets.js
// may reuse the message's memory after its callback returns, and nothing here keeps a
// pointer). The Float64Array `state` passed to create() is referenced by the handle until
// close() and is rewritten after every push/setFormat/flush/clear/read/discard with the
// fields listed in StateField (mirrored by src/engines/signal/live/stream-front-end.ts).
#include "dsp/stream-front-end.h"
#include "napi/bindings.h"
#include "napi/event-copy.h"
#include "napi/handle-class.h"
#include "napi/napi-util.h"
#include "napi/ring-samples.h"
#include "napi/vad-options.h"

namespace gwnapi {

namespace {

using gw::StreamFrontEnd;

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
using FrontEnd = HandleClass<FrontEndBox, 7>;

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
  return FrontEnd::Make(info.Env(), std::move(box), bytes);
}

// (handle, ArrayBuffer | typed array) -> status (0 ok; see src/engines/runtime/native-status.ts)
Napi::Value Push(const Napi::CallbackInfo& info, FrontEndBox* b) {
  Bytes msg;
  if (!GetBytes(info, 1, &msg)) return {};
  const gw::Status s = b->fe->Push(msg.data, msg.size);
  WriteState(b);
  return Napi::Number::New(info.Env(), gw::ToInt(s));
}

// (handle, format code) -> status
Napi::Value SetFormat(const Napi::CallbackInfo& info, FrontEndBox* b) {
  double format = 0;
  if (!GetNumber(info, 1, &format)) return {};
  if (!gw::IsAudioFormat(static_cast<int32_t>(format)) || format != static_cast<int32_t>(format)) {
    ThrowRange(info.Env(), "unknown format code");
    return {};
  }
  const gw::Status s = b->fe->SetFormat(static_cast<gw::AudioFormat>(static_cast<int32_t>(format)));
  WriteState(b);
  return Napi::Number::New(info.Env(), gw::ToInt(s));
}

// (handle) -> status; end of input
Napi::Value Flush(const Napi::CallbackInfo& info, FrontEndBox* b) {
  const gw::Status s = b->fe->Flush();
  WriteState(b);
  return Napi::Number::New(info.Env(), gw::ToInt(s));
}

Napi::Value Clear(const Napi::CallbackInfo& info, FrontEndBox* b) {
  b->fe->Clear();
  WriteState(b);
  return info.Env().Undefined();
}

// (handle, Float32Array | Int16Array) -> samples read (consumed)
Napi::Value Read(const Napi::CallbackInfo& info, FrontEndBox* b) {
  Samples s;
  if (!GetSamples(info, 1, &s)) return {};
  const size_t n = ReadSamples(&b->fe->ring(), s);
  WriteState(b);
  return Count(info.Env(), n);
}

// (handle, position, Float32Array | Int16Array) -> samples copied from max(position, readPos)
Napi::Value Peek(const Napi::CallbackInfo& info, FrontEndBox* b) {
  uint64_t pos = 0;
  Samples s;
  if (!GetPosition(info, 1, &pos) || !GetSamples(info, 2, &s)) return {};
  return Count(info.Env(), PeekSamples(b->fe->ring(), pos, s));
}

// (handle, position) -> samples discarded
Napi::Value DiscardUntil(const Napi::CallbackInfo& info, FrontEndBox* b) {
  uint64_t pos = 0;
  if (!GetPosition(info, 1, &pos)) return {};
  const size_t n = b->fe->ring().DiscardUntil(pos);
  WriteState(b);
  return Count(info.Env(), n);
}

// (handle, Float64Array) -> events written (4 numbers each); the rest stay queued
Napi::Value TakeEvents(const Napi::CallbackInfo& info, FrontEndBox* b) {
  double* out = nullptr;
  size_t cap = 0;
  if (!GetFloat64(info, 1, &out, &cap)) return {};
  const size_t n = CopyEvents(&b->fe->events(), out, cap);
  WriteState(b);
  return Count(info.Env(), n);
}

}  // namespace

void RegisterFrontEnd(Napi::Env env, Napi::Object exports) {
  FrontEnd::Register<Push, SetFormat, Flush, Clear, Read, Peek, DiscardUntil, TakeEvents>(
      env, exports, "frontEnd", Create,
      {"Push", "SetFormat", "Flush", "Clear", "Read", "Peek", "DiscardUntil", "TakeEvents"});
}

}  // namespace gwnapi
