// resampler*: the polyphase resampler on its own (for tests and the parts benchmark).
#include "dsp/resampler.h"
#include "napi/bindings.h"
#include "napi/handle-class.h"
#include "napi/napi-util.h"

namespace gwnapi {

namespace {

using gw::Resampler;
using Handle = HandleClass<Resampler, 2>;

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
  return Handle::Make(info.Env(), std::move(r));
}

// (handle) -> { up, down, tapsPerPhase, delay, latencyInput, simd }
Napi::Value Info(const Napi::CallbackInfo& info, Resampler* r) {
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

Napi::Value MaxOutput(const Napi::CallbackInfo& info, Resampler* r) {
  uint64_t n = 0;
  if (!GetPosition(info, 1, &n)) return {};
  return Count(info.Env(), r->MaxOutput(static_cast<size_t>(n)));
}

// (handle, Float32Array input, Float32Array output) -> outputs written
Napi::Value Process(const Napi::CallbackInfo& info, Resampler* r) {
  float *in = nullptr, *out = nullptr;
  size_t in_len = 0, out_len = 0;
  if (!GetFloat32(info, 1, &in, &in_len) || !GetFloat32(info, 2, &out, &out_len)) return {};
  if (out_len < r->MaxOutput(in_len)) {
    ThrowRange(info.Env(), "output array shorter than maxOutput(input.length)");
    return {};
  }
  return Count(info.Env(), r->Process(in, in_len, out));
}

// (handle, Float32Array output) -> outputs written; the resampler is reset afterwards
Napi::Value Flush(const Napi::CallbackInfo& info, Resampler* r) {
  float* out = nullptr;
  size_t out_len = 0;
  if (!GetFloat32(info, 1, &out, &out_len)) return {};
  if (out_len < r->FlushMaxOutput()) {
    ThrowRange(info.Env(), "output array shorter than flushMaxOutput");
    return {};
  }
  return Count(info.Env(), r->Flush(out));
}

}  // namespace

void RegisterResampler(Napi::Env env, Napi::Object exports) {
  Handle::Register<Info, MaxOutput, Process, Flush, CallReset<Resampler>>(
      env, exports, "resampler", Create, {"Info", "MaxOutput", "Process", "Flush", "Reset"});
}

}  // namespace gwnapi
