// Each binding file registers its functions on the addon's exports.
#pragma once

#include <napi.h>

namespace gwnapi {

void RegisterRingBuffer(Napi::Env env, Napi::Object exports);
void RegisterResampler(Napi::Env env, Napi::Object exports);
void RegisterOpusDecoder(Napi::Env env, Napi::Object exports);
void RegisterWebmDemuxer(Napi::Env env, Napi::Object exports);
void RegisterEnergyVad(Napi::Env env, Napi::Object exports);
void RegisterEndpointer(Napi::Env env, Napi::Object exports);
void RegisterFrontEnd(Napi::Env env, Napi::Object exports);
void RegisterThreadPriority(Napi::Env env, Napi::Object exports);
void RegisterLogMel(Napi::Env env, Napi::Object exports);

}  // namespace gwnapi
