// libFuzzer target: the WebM demuxer and the webm_opus front end.
// Properties checked besides memory safety (ASan/UBSan):
// - the frames found do not depend on how the input is split;
// - the front end never buffers more than its hard capacity.
#include <cstdlib>
#include <vector>

#include "collecting-sinks.h"
#include "dsp/stream-front-end.h"
#include "dsp/webm-demuxer.h"
#include "fuzz-split.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint8_t seed = 0;
  if (!gwfuzz::TakeSeed(&data, &size, &seed)) return 0;
  const auto r = gwfuzz::RunWholeAndSplit<gwtest::WebmRecorder>(gw::WebmDemuxer(4096), data, size,
                                                                seed, 1 + seed % 64);
  // Structural errors depend only on the bytes; sink-free runs must agree exactly, except
  // that an oversized block is only detectable across splits... the block limit applies
  // either way, so frames and statuses must match.
  if (r.whole_status != r.split_status || r.whole.frames != r.split.frames ||
      r.whole.tracks.size() != r.split.tracks.size()) {
    std::abort();
  }

  auto fe = gwfuzz::MakeFrontEnd(gw::AudioFormat::kWebmOpus, 48000, 4000,
                                 (seed & 1) != 0 ? 48000 : 16000);
  gwfuzz::PushFrontEndSplit(fe.get(), 48000, data, size, seed, 300);
  gw::EndpointEvent ev[16];
  while (fe->events().Pop(ev, 16) > 0) {
  }
  return 0;
}
