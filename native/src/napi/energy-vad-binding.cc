// energyVad*: the energy VAD on its own (the front end embeds one).
#include "dsp/energy-vad.h"
#include "napi/bindings.h"
#include "napi/napi-util.h"
#include "napi/vad-options.h"

namespace gwnapi {

namespace {

using gw::EnergyVad;
constexpr napi_type_tag kTag = {0x6777a1b2c3d4e5f6ULL, 0x0000000000000005ULL};

// (options?) -> handle
Napi::Value Create(const Napi::CallbackInfo& info) {
  gw::EnergyVadConfig c;
  if (info.Length() > 0 && info[0].IsObject() &&
      !ReadEnergyVadOptions(info[0].As<Napi::Object>(), &c)) {
    return {};
  }
  if (EnergyVad::Validate(c) != gw::Status::kOk) {
    ThrowRange(info.Env(), "invalid energy VAD options");
    return {};
  }
  return MakeHandle(info.Env(), std::make_unique<EnergyVad>(c), kTag, 0);
}

// (handle, Float32Array | Int16Array samples, Float32Array probabilities) -> frames completed.
// probabilities needs room for floor((pending + samples.length) / frameSamples).
Napi::Value Process(const Napi::CallbackInfo& info) {
  EnergyVad* vad = GetObject<EnergyVad>(info, 0, kTag);
  Samples s;
  float* probs = nullptr;
  size_t cap = 0;
  if (vad == nullptr || !GetSamples(info, 1, &s) || !GetFloat32(info, 2, &probs, &cap)) return {};
  if (cap < vad->MaxFrames(s.len)) {
    ThrowRange(info.Env(), "probabilities array too short");
    return {};
  }
  const size_t n =
      s.f32 != nullptr ? vad->Process(s.f32, s.len, probs) : vad->ProcessInt16(s.i16, s.len, probs);
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

// (handle, Float64Array(2)): noise floor dBFS, last frame energy dBFS
Napi::Value Stats(const Napi::CallbackInfo& info) {
  EnergyVad* vad = GetObject<EnergyVad>(info, 0, kTag);
  double* out = nullptr;
  size_t len = 0;
  if (vad == nullptr || !GetFloat64(info, 1, &out, &len)) return {};
  if (len < 2) {
    ThrowRange(info.Env(), "stats array needs 2 elements");
    return {};
  }
  out[0] = vad->noise_floor_dbfs();
  out[1] = vad->last_energy_dbfs();
  return info.Env().Undefined();
}

Napi::Value Reset(const Napi::CallbackInfo& info) {
  EnergyVad* vad = GetObject<EnergyVad>(info, 0, kTag);
  if (vad != nullptr) vad->Reset();
  return info.Env().Undefined();
}

Napi::Value Close(const Napi::CallbackInfo& info) { return CloseHandle<EnergyVad>(info, kTag); }

}  // namespace

void RegisterEnergyVad(Napi::Env env, Napi::Object exports) {
  exports.Set("energyVadCreate", Napi::Function::New(env, Create));
  exports.Set("energyVadProcess", Napi::Function::New(env, Process));
  exports.Set("energyVadStats", Napi::Function::New(env, Stats));
  exports.Set("energyVadReset", Napi::Function::New(env, Reset));
  exports.Set("energyVadClose", Napi::Function::New(env, Close));
}

}  // namespace gwnapi
