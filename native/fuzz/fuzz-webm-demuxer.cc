// libFuzzer target: the WebM demuxer and the webm_opus front end.
// Properties checked besides memory safety (ASan/UBSan):
// - the frames found do not depend on how the input is split;
// - the front end never buffers more than its hard capacity.
#include <cstdlib>
#include <vector>

#include "dsp/stream-front-end.h"
#include "dsp/webm-demuxer.h"
#include "fuzz-split.h"

namespace {

struct Collect final : gw::WebmFrameSink {
  std::vector<uint8_t> bytes;
  std::vector<size_t> lengths;
  int tracks = 0;
  gw::Status OnAudioTrack(const gw::WebmAudioTrack&) override {
    ++tracks;
    return gw::Status::kOk;
  }
  gw::Status OnFrame(const uint8_t* d, size_t n) override {
    bytes.insert(bytes.end(), d, d + n);
    lengths.push_back(n);
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
      gwfuzz::PushSplit(gw::WebmDemuxer(4096), data, size, 0, size == 0 ? 1 : size, &whole);
  const gw::Status b =
      gwfuzz::PushSplit(gw::WebmDemuxer(4096), data, size, seed, 1 + seed % 64, &split);
  // Structural errors depend only on the bytes; sink-free runs must agree exactly, except
  // that an oversized block is only detectable across splits... the block limit applies
  // either way, so frames and statuses must match.
  if (a != b || whole.lengths != split.lengths || whole.bytes != split.bytes ||
      whole.tracks != split.tracks) {
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
