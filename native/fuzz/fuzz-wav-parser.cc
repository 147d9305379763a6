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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t seed = data[0];
  ++data;
  --size;
  Collect whole, split;
  const gw::Status a =
      gwfuzz::PushSplit(gw::WavParser(), data, size, 0, size == 0 ? 1 : size, &whole);
  const gw::Status b = gwfuzz::PushSplit(gw::WavParser(), data, size, seed, 1 + seed % 32, &split);
  // Bitwise comparison (NaN-safe) of the samples.
  if (a != b || whole.formats != split.formats || whole.samples.size() != split.samples.size() ||
      (!whole.samples.empty() && std::memcmp(whole.samples.data(), split.samples.data(),
                                             whole.samples.size() * sizeof(float)) != 0)) {
    std::abort();
  }

  auto fe = gwfuzz::MakeFrontEnd(gw::AudioFormat::kWav, 32000, 1000);
  gwfuzz::PushFrontEndSplit(fe.get(), 32000, data, size, seed, 200);
  return 0;
}
