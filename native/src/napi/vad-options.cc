#include "napi/vad-options.h"

#include "napi/napi-util.h"

namespace gwnapi {

namespace {
bool OptionalFloat(const Napi::Object& o, const char* name, float* value) {
  double d = *value;
  if (!OptionalNumber(o, name, &d)) return false;
  *value = static_cast<float>(d);
  return true;
}
}  // namespace

bool ReadEnergyVadOptions(const Napi::Object& o, gw::EnergyVadConfig* c) {
  return OptionalInt(o, "sampleRate", &c->sample_rate) &&
         OptionalInt(o, "frameSamples", &c->frame_samples) &&
         OptionalFloat(o, "thresholdDb", &c->threshold_db) &&
         OptionalFloat(o, "slopeDb", &c->slope_db) &&
         OptionalFloat(o, "minEnergyDbfs", &c->min_energy_dbfs) &&
         OptionalFloat(o, "floorMinDbfs", &c->floor_min_dbfs) &&
         OptionalFloat(o, "floorWindowSeconds", &c->floor_window_s);
}

bool ReadEndpointerOptions(const Napi::Object& o, gw::EndpointerConfig* c) {
  return OptionalInt(o, "sampleRate", &c->sample_rate) &&
         OptionalInt(o, "hopSamples", &c->hop_samples) &&
         OptionalFloat(o, "startThreshold", &c->start_threshold) &&
         OptionalFloat(o, "endThreshold", &c->end_threshold) &&
         OptionalInt(o, "minSpeechMs", &c->min_speech_ms) &&
         OptionalInt(o, "minSilenceMs", &c->min_silence_ms) &&
         OptionalInt(o, "prePadMs", &c->pre_pad_ms) &&
         OptionalInt(o, "postPadMs", &c->post_pad_ms) &&
         OptionalInt(o, "maxSpeechMs", &c->max_speech_ms);
}

}  // namespace gwnapi
