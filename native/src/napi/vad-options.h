// Reads energy-VAD and endpointer options from a JavaScript object (camelCase names).
#pragma once

#include <napi.h>

#include "dsp/endpointer.h"
#include "dsp/energy-vad.h"
#include "napi/napi-util.h"

namespace gwnapi {

bool ReadEnergyVadOptions(const Napi::Object& o, gw::EnergyVadConfig* c);
bool ReadEndpointerOptions(const Napi::Object& o, gw::EndpointerConfig* c);

// The optional options object of a create call (argument 0, read with `read` when it is an
// object), then checked with Part::Validate; false with an exception pending.
template <typename Part, typename Config>
bool ReadCreateOptions(const Napi::CallbackInfo& info, bool (*read)(const Napi::Object&, Config*),
                       const char* invalid_message, Config* c) {
  if (info.Length() > 0 && info[0].IsObject() && !read(info[0].As<Napi::Object>(), c)) {
    return false;
  }
  if (Part::Validate(*c) != gw::Status::kOk) {
    ThrowRange(info.Env(), invalid_message);
    return false;
  }
  return true;
}

}  // namespace gwnapi
