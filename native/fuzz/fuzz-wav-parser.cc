// libFuzzer target: the WAV parser and the wav front end (resampling included).
// Properties: samples do not depend on how the input is split; the buffer stays bounded.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "collecting-sinks.h"
#include "dsp/stream-front-end.h"
#include "dsp/wav-parser.h"
#include "fuzz-split.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint8_t seed = 0;
  if (!gwfuzz::TakeSeed(&data, &size, &seed)) return 0;
  const auto r = gwfuzz::RunWholeAndSplit<gwtest::WavCollector>(gw::WavParser(), data, size, seed,
                                                                1 + seed % 32);
  const auto& whole = r.whole;
  const auto& split = r.split;
  // Bitwise comparison (NaN-safe) of the samples.
  if (r.whole_status != r.split_status || whole.formats.size() != split.formats.size() ||
      whole.samples.size() != split.samples.size() ||
      (!whole.samples.empty() && std::memcmp(whole.samples.data(), split.samples.data(),
                                             whole.samples.size() * sizeof(float)) != 0)) {
    std::abort();
  }

  auto fe = gwfuzz::MakeFrontEnd(gw::AudioFormat::kWav, 32000, 1000);
  gwfuzz::PushFrontEndSplit(fe.get(), 32000, data, size, seed, 200);
  return 0;
}
