// Reads energy-VAD and endpointer options from a JavaScript object (camelCase names).
#pragma once

#include <napi.h>

#include "dsp/endpointer.h"
#include "dsp/energy-vad.h"

namespace gwnapi {

bool ReadEnergyVadOptions(const Napi::Object& o, gw::EnergyVadConfig* c);
bool ReadEndpointerOptions(const Napi::Object& o, gw::EndpointerConfig* c);

}  // namespace gwnapi
