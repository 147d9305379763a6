// energyVad*: the energy VAD on its own (the front end embeds one).
#include "dsp/energy-vad.h"
#include "napi/bindings.h"
#include "napi/handle-class.h"
#include "napi/napi-util.h"
#include "napi/vad-options.h"

namespace gwnapi {

namespace {

using gw::EnergyVad;
using Vad = HandleClass<EnergyVad, 5>;

// (options?) -> handle
Napi::Value Create(const Napi::CallbackInfo& info) {
  gw::EnergyVadConfig c;
  if (!ReadCreateOptions<EnergyVad>(info, ReadEnergyVadOptions, "invalid energy VAD options", &c)) {
    return {};
  }
  return Vad::Make(info.Env(), std::make_unique<EnergyVad>(c));
}

// (handle, Float32Array | Int16Array samples, Float32Array probabilities) -> frames completed.
// probabilities needs room for floor((pending + samples.length) / frameSamples).
Napi::Value Process(const Napi::CallbackInfo& info, EnergyVad* vad) {
  Samples s;
  float* probs = nullptr;
  size_t cap = 0;
  if (!GetSamples(info, 1, &s) || !GetFloat32(info, 2, &probs, &cap)) return {};
  if (cap < vad->MaxFrames(s.len)) {
    ThrowRange(info.Env(), "probabilities array too short");
    return {};
  }
  return Count(info.Env(), s.f32 != nullptr ? vad->Process(s.f32, s.len, probs)
                                            : vad->ProcessInt16(s.i16, s.len, probs));
}

// (handle, Float64Array(2)): noise floor dBFS, last frame energy dBFS
Napi::Value Stats(const Napi::CallbackInfo& info, EnergyVad* vad) {
  double* out = GetStatsArray(info, 1, 2);
  if (out == nullptr) return {};
  out[0] = vad->noise_floor_dbfs();
  out[1] = vad->last_energy_dbfs();
  return info.Env().Undefined();
}

}  // namespace

void RegisterEnergyVad(Napi::Env env, Napi::Object exports) {
  Vad::Register<Process, Stats, CallReset<EnergyVad>>(env, exports, "energyVad", Create,
                                                      {"Process", "Stats", "Reset"});
}

}  // namespace gwnapi
