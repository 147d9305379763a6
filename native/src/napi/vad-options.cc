#include "napi/vad-options.h"

#include <initializer_list>

#include "napi/napi-util.h"

namespace gwnapi {

namespace {

// One option: its JavaScript name and the int or float member it sets (the other is null).
template <typename Config>
struct Field {
  const char* name;
  int Config::*int_member;
  float Config::*float_member;
};

template <typename Config>
Field<Config> Int(const char* name, int Config::*member) {
  return {name, member, nullptr};
}

template <typename Config>
Field<Config> Float(const char* name, float Config::*member) {
  return {name, nullptr, member};
}

// Reads the fields in order and stops at the first invalid one (its exception pending).
template <typename Config>
bool ReadFields(const Napi::Object& o, Config* c, std::initializer_list<Field<Config>> fields) {
  for (const Field<Config>& f : fields) {
    if (f.int_member != nullptr) {
      if (!OptionalInt(o, f.name, &(c->*f.int_member))) return false;
      continue;
    }
    double d = c->*f.float_member;
    if (!OptionalNumber(o, f.name, &d)) return false;
    c->*f.float_member = static_cast<float>(d);
  }
  return true;
}

}  // namespace

bool ReadEnergyVadOptions(const Napi::Object& o, gw::EnergyVadConfig* c) {
  using C = gw::EnergyVadConfig;
  return ReadFields<C>(
      o, c,
      {Int("sampleRate", &C::sample_rate), Int("frameSamples", &C::frame_samples),
       Float("thresholdDb", &C::threshold_db), Float("slopeDb", &C::slope_db),
       Float("minEnergyDbfs", &C::min_energy_dbfs), Float("floorMinDbfs", &C::floor_min_dbfs),
       Float("floorWindowSeconds", &C::floor_window_s)});
}

bool ReadEndpointerOptions(const Napi::Object& o, gw::EndpointerConfig* c) {
  using C = gw::EndpointerConfig;
  return ReadFields<C>(
      o, c,
      {Int("sampleRate", &C::sample_rate), Int("hopSamples", &C::hop_samples),
       Float("startThreshold", &C::start_threshold), Float("endThreshold", &C::end_threshold),
       Int("minSpeechMs", &C::min_speech_ms), Int("minSilenceMs", &C::min_silence_ms),
       Int("prePadMs", &C::pre_pad_ms), Int("postPadMs", &C::post_pad_ms),
       Int("maxSpeechMs", &C::max_speech_ms)});
}

}  // namespace gwnapi
