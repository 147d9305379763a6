// resampler*: the polyphase resampler on its own (for tests and the parts benchmark).
#include "dsp/resampler.h"
#include "napi/bindings.h"
#include "napi/napi-util.h"

namespace gwnapi {

namespace {

using gw::Resampler;
constexpr napi_type_tag kTag = {0x6777a1b2c3d4e5f6ULL, 0x0000000000000002ULL};

bool ReadQuality(const Napi::CallbackInfo& info, size_t index, gw::ResamplerQuality* q) {
  if (info.Length() <= index || info[index].IsUndefined()) return true;
  if (!info[index].IsObject()) {
    Napi::TypeError::New(info.Env(), "quality must be an object").ThrowAsJavaScriptException();
    return false;
  }
  const Napi::Object o = info[index].As<Napi::Object>();
  return OptionalNumber(o, "passFraction", &q->pass_fraction) &&
         OptionalNumber(o, "stopFraction", &q->stop_fraction) &&
         OptionalNumber(o, "attenuationDb", &q->attenuation_db);
}

// (inRate, outRate, quality?) -> handle
Napi::Value Create(const Napi::CallbackInfo& info) {
  double in_rate = 0, out_rate = 0;
  gw::ResamplerQuality quality;
  if (!GetNumber(info, 0, &in_rate) || !GetNumber(info, 1, &out_rate) ||
      !ReadQuality(info, 2, &quality)) {
    return {};
  }
  auto r = Resampler::Create(static_cast<int>(in_rate), static_cast<int>(out_rate), quality);
  if (!r || in_rate != static_cast<int>(in_rate) || out_rate != static_cast<int>(out_rate)) {
    ThrowRange(info.Env(), "unsupported sample rates or quality for the resampler");
    return {};
  }
  return MakeHandle(info.Env(), std::move(r), kTag, 0);
}

// (handle) -> { up, down, tapsPerPhase, delay, latencyInput, simd }
Napi::Value Info(const Napi::CallbackInfo& info) {
  Resampler* r = GetObject<Resampler>(info, 0, kTag);
  if (r == nullptr) return {};
  const auto& b = r->bank();
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("up", b.up);
  o.Set("down", b.down);
  o.Set("tapsPerPhase", b.taps);
  o.Set("delay", b.delay);
  o.Set("latencyInput", static_cast<double>(r->latency_input()));
  o.Set("flushMaxOutput", static_cast<double>(r->FlushMaxOutput()));
  return o;
}

Napi::Value MaxOutput(const Napi::CallbackInfo& info) {
  Resampler* r = GetObject<Resampler>(info, 0, kTag);
  uint64_t n = 0;
  if (r == nullptr || !GetPosition(info, 1, &n)) return {};
  return Napi::Number::New(info.Env(), static_cast<double>(r->MaxOutput(static_cast<size_t>(n))));
}

// (handle, Float32Array input, Float32Array output) -> outputs written
Napi::Value Process(const Napi::CallbackInfo& info) {
  Resampler* r = GetObject<Resampler>(info, 0, kTag);
  float *in = nullptr, *out = nullptr;
  size_t in_len = 0, out_len = 0;
  if (r == nullptr || !GetFloat32(info, 1, &in, &in_len) || !GetFloat32(info, 2, &out, &out_len)) {
    return {};
  }
  if (out_len < r->MaxOutput(in_len)) {
    ThrowRange(info.Env(), "output array shorter than maxOutput(input.length)");
    return {};
  }
  return Napi::Number::New(info.Env(), static_cast<double>(r->Process(in, in_len, out)));
}

// (handle, Float32Array output) -> outputs written; the resampler is reset afterwards
Napi::Value Flush(const Napi::CallbackInfo& info) {
  Resampler* r = GetObject<Resampler>(info, 0, kTag);
  float* out = nullptr;
  size_t out_len = 0;
  if (r == nullptr || !GetFloat32(info, 1, &out, &out_len)) return {};
  if (out_len < r->FlushMaxOutput()) {
    ThrowRange(info.Env(), "output array shorter than flushMaxOutput");
    return {};
  }
  return Napi::Number::New(info.Env(), static_cast<double>(r->Flush(out)));
}

Napi::Value Reset(const Napi::CallbackInfo& info) {
  Resampler* r = GetObject<Resampler>(info, 0, kTag);
  if (r != nullptr) r->Reset();
  return info.Env().Undefined();
}

Napi::Value Close(const Napi::CallbackInfo& info) { return CloseHandle<Resampler>(info, kTag); }

}  // namespace

void RegisterResampler(Napi::Env env, Napi::Object exports) {
  exports.Set("resamplerCreate", Napi::Function::New(env, Create));
  exports.Set("resamplerInfo", Napi::Function::New(env, Info));
  exports.Set("resamplerMaxOutput", Napi::Function::New(env, MaxOutput));
  exports.Set("resamplerProcess", Napi::Function::New(env, Process));
  exports.Set("resamplerFlush", Napi::Function::New(env, Flush));
  exports.Set("resamplerReset", Napi::Function::New(env, Reset));
  exports.Set("resamplerClose", Napi::Function::New(env, Close));
}

}  // namespace gwnapi
