// endpointer*: speech start/end from probabilities (used with Silero; the front end embeds
// one for the energy VAD).
#include "dsp/endpointer.h"
#include "napi/bindings.h"
#include "napi/event-copy.h"
#include "napi/handle-class.h"
#include "napi/napi-util.h"
#include "napi/vad-options.h"

namespace gwnapi {

namespace {

struct EndpointerBox {
  explicit EndpointerBox(const gw::EndpointerConfig& c) : endpointer(c) {}
  gw::Endpointer endpointer;
  gw::EventQueue events;  // events not yet copied out
};
using Endpointer = HandleClass<EndpointerBox, 6>;

// (options?) -> handle
Napi::Value Create(const Napi::CallbackInfo& info) {
  gw::EndpointerConfig c;
  if (!ReadCreateOptions<gw::Endpointer>(info, ReadEndpointerOptions, "invalid endpointer options",
                                         &c)) {
    return {};
  }
  return Endpointer::Make(info.Env(), std::make_unique<EndpointerBox>(c));
}

// (handle, Float32Array probabilities, Float64Array events) -> events written (4 numbers
// each). Events that do not fit stay queued for the next call.
Napi::Value Process(const Napi::CallbackInfo& info, EndpointerBox* b) {
  float* probs = nullptr;
  double* out = nullptr;
  size_t n = 0, cap = 0;
  if (!GetFloat32(info, 1, &probs, &n) || !GetFloat64(info, 2, &out, &cap)) return {};
  for (size_t i = 0; i < n; ++i) b->endpointer.Push(probs[i], &b->events);
  return Count(info.Env(), CopyEvents(&b->events, out, cap));
}

// (handle, Float64Array events) -> events written; closes an open turn (end of stream)
Napi::Value Flush(const Napi::CallbackInfo& info, EndpointerBox* b) {
  double* out = nullptr;
  size_t cap = 0;
  if (!GetFloat64(info, 1, &out, &cap)) return {};
  b->endpointer.Flush(&b->events);
  return Count(info.Env(), CopyEvents(&b->events, out, cap));
}

// (handle, position): forget the turn in progress and continue from this sample position
Napi::Value ResetAt(const Napi::CallbackInfo& info, EndpointerBox* b) {
  uint64_t pos = 0;
  if (!GetPosition(info, 1, &pos)) return {};
  b->endpointer.ResetAt(pos);
  b->events.Clear();
  return info.Env().Undefined();
}

// (handle, Float64Array(4)): position, inSpeech, pending events, dropped events
Napi::Value Stats(const Napi::CallbackInfo& info, EndpointerBox* b) {
  double* out = GetStatsArray(info, 1, 4);
  if (out == nullptr) return {};
  out[0] = static_cast<double>(b->endpointer.position());
  out[1] = b->endpointer.in_speech() ? 1 : 0;
  out[2] = static_cast<double>(b->events.size());
  out[3] = static_cast<double>(b->events.dropped());
  return info.Env().Undefined();
}

}  // namespace

void RegisterEndpointer(Napi::Env env, Napi::Object exports) {
  Endpointer::Register<Process, Flush, ResetAt, Stats>(env, exports, "endpointer", Create,
                                                       {"Process", "Flush", "ResetAt", "Stats"});
}

}  // namespace gwnapi
