// libFuzzer target: the WAV parser and the wav front end (resampling included).
// Properties: samples do not depend on how the input is split; the buffer stays bounded.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dsp/stream-front-end.h"
#include "dsp/wav-parser.h"
#include "fuzz-split.h"

namespace {

struct Collect final : gw::WavSampleSink {
  std::vector<float> samples;
  int formats = 0;
  gw::Status OnFormat(const gw::WavFormat&) override {
    ++formats;
    return gw::Status::kOk;
  }
  gw::Status OnSamples(const float* x, size_t n) override {
    samples.insert(samples.end(), x, x + n);
    return gw::Status::kOk;
  }
};

gw::Status Run(const uint8_t* data, size_t size, uint8_t seed, size_t max, Collect* out) {
  gw::WavParser p;
  gw::Status last = gw::Status::kOk;
  for (const auto& piece : gwfuzz::SplitInput(data, size, seed, max)) {
    const gw::Status s = p.Push(piece.data, piece.size, out);
    if (s != gw::Status::kOk) last = s;
  }
  return last;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t seed = data[0];
  ++data;
  --size;
  Collect whole, split;
  const gw::Status a = Run(data, size, 0, size == 0 ? 1 : size, &whole);
  const gw::Status b = Run(data, size, seed, 1 + seed % 32, &split);
  // Bitwise comparison (NaN-safe) of the samples.
  if (a != b || whole.formats != split.formats || whole.samples.size() != split.samples.size() ||
      (!whole.samples.empty() && std::memcmp(whole.samples.data(), split.samples.data(),
                                             whole.samples.size() * sizeof(float)) != 0)) {
    std::abort();
  }

  gw::FrontEndConfig config;
  config.format = gw::AudioFormat::kWav;
  config.max_buffer_samples = 32000;
  config.initial_buffer_samples = 1000;
  gw::Status status;
  auto fe = gw::StreamFrontEnd::Create(config, &status);
  for (const auto& piece : gwfuzz::SplitInput(data, size, seed, 200)) {
    fe->Push(piece.data, piece.size);
    if (fe->ring().size() > config.max_buffer_samples) std::abort();
  }
  fe->Flush();
  return 0;
}
