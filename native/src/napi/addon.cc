// Entry point of gateway_native.node. The surface is C-like: `<part>Create` returns an
// opaque handle, `<part><Verb>(handle, ...)` works on caller-allocated typed arrays, and
// `<part>Close(handle)` frees it. src/engines/signal/live/*.ts wraps each part in a class.
#include <napi.h>

#include "dsp/simd-dot.h"
#include "napi/bindings.h"

namespace {

constexpr const char* kVersion = "0.2.0";

Napi::Value Version(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), kVersion);
}

// Which dot-product kernel the resampler uses on this CPU ("avx512", "avx2", "scalar").
Napi::Value SimdKernel(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), gw::SelectedDotName());
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("version", Napi::Function::New(env, Version, "version"));
  exports.Set("simdKernel", Napi::Function::New(env, SimdKernel, "simdKernel"));
  gwnapi::RegisterRingBuffer(env, exports);
  gwnapi::RegisterResampler(env, exports);
  gwnapi::RegisterOpusDecoder(env, exports);
  gwnapi::RegisterWebmDemuxer(env, exports);
  gwnapi::RegisterEnergyVad(env, exports);
  gwnapi::RegisterEndpointer(env, exports);
  gwnapi::RegisterFrontEnd(env, exports);
  gwnapi::RegisterThreadPriority(env, exports);
  gwnapi::RegisterLogMel(env, exports);
  return exports;
}

NODE_API_MODULE(gateway_native, Init)
