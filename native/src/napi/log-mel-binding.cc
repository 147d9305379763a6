// logMel*: log-mel frames (dsp/log-mel.h) for src/engines/signal/features/log-mel-features.ts.
#include <utility>

#include "dsp/log-mel.h"
#include "napi/bindings.h"
#include "napi/handle-class.h"
#include "napi/napi-util.h"

namespace gwnapi {

namespace {

using gw::LogMel;
using Handle = HandleClass<LogMel, 8>;

// (nFft, hopLength, power, logFloor, window Float64Array, bank Float64Array,
//  bankFrom Int32Array, bankTo Int32Array) -> handle
Napi::Value Create(const Napi::CallbackInfo& info) {
  double n_fft = 0, hop = 0, power = 0, log_floor = 0;
  double *window = nullptr, *bank = nullptr;
  int32_t *from = nullptr, *to = nullptr;
  size_t window_len = 0, bank_len = 0, from_len = 0, to_len = 0;
  if (!GetNumber(info, 0, &n_fft) || !GetNumber(info, 1, &hop) || !GetNumber(info, 2, &power) ||
      !GetNumber(info, 3, &log_floor) || !GetFloat64(info, 4, &window, &window_len) ||
      !GetFloat64(info, 5, &bank, &bank_len) || !GetInt32(info, 6, &from, &from_len) ||
      !GetInt32(info, 7, &to, &to_len)) {
    return {};
  }
  if (n_fft < 2 || n_fft > 1 << 20 || n_fft != static_cast<size_t>(n_fft) || hop < 1 ||
      hop > 1 << 20 || hop != static_cast<size_t>(hop) || (power != 1 && power != 2)) {
    ThrowRange(info.Env(),
               "nFft and hopLength must be integers in [2, 2^20] and [1, 2^20], power 1 or 2");
    return {};
  }
  gw::LogMelConfig config;
  config.n_fft = static_cast<size_t>(n_fft);
  config.hop = static_cast<size_t>(hop);
  config.power = static_cast<int>(power);
  config.log_floor = log_floor;
  config.window.assign(window, window + window_len);
  config.bank.assign(bank, bank + bank_len);
  config.bank_from.assign(from, from + from_len);
  config.bank_to.assign(to, to + to_len);
  auto mel = LogMel::Create(std::move(config));
  if (!mel) {
    ThrowRange(info.Env(),
               "unsupported log-mel parameters (sizes, power, or an n_fft prime factor above 13)");
    return {};
  }
  const int64_t bytes = static_cast<int64_t>((window_len + bank_len) * sizeof(double));
  return Handle::Make(info.Env(), std::move(mel), bytes);
}

// (handle, Float32Array pcm, center boolean, Float32Array out) -> frames written
Napi::Value Compute(const Napi::CallbackInfo& info, LogMel* mel) {
  float *pcm = nullptr, *out = nullptr;
  size_t pcm_len = 0, out_len = 0;
  if (!GetFloat32(info, 1, &pcm, &pcm_len) || !GetFloat32(info, 3, &out, &out_len)) return {};
  if (info.Length() < 3 || !info[2].IsBoolean()) {
    Napi::TypeError::New(info.Env(), "center must be a boolean").ThrowAsJavaScriptException();
    return {};
  }
  const bool center = info[2].As<Napi::Boolean>().Value();
  const size_t frames = mel->FrameCount(pcm_len, center);
  if (out_len < frames * mel->mels()) {
    ThrowRange(info.Env(), "output array shorter than frames * mels");
    return {};
  }
  mel->Compute(pcm, pcm_len, center, out);
  return Count(info.Env(), frames);
}

}  // namespace

void RegisterLogMel(Napi::Env env, Napi::Object exports) {
  Handle::Register<Compute>(env, exports, "logMel", Create, {"Compute"});
}

}  // namespace gwnapi
