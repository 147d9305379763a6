// libFuzzer target: the opus_raw_16k path (one packet per message) and the Opus decoder at
// 48 kHz. The input is a sequence of [length byte][packet bytes] messages.
#include <cstdlib>
#include <vector>

#include "dsp/opus-frame-decoder.h"
#include "dsp/stream-front-end.h"
#include "fuzz-split.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kMaxSamples = 16000;
  auto fe = gwfuzz::MakeFrontEnd(gw::AudioFormat::kOpusRaw16k, kMaxSamples, 1000);
  auto dec48 = gw::OpusFrameDecoder::Create(48000);
  std::vector<float> out(dec48->max_frame_samples());

  size_t at = 0;
  while (at < size) {
    const size_t len = std::min<size_t>(data[at], size - at - 1);
    const uint8_t* packet = data + at + 1;
    const uint64_t before = fe->ring().write_pos();
    const gw::Status s = fe->Push(packet, len);
    const uint64_t added = fe->ring().write_pos() - before;
    // A message adds exactly 20 ms or nothing (or what fits when the buffer is full).
    if (s == gw::Status::kOk && added != 320) std::abort();
    if (s != gw::Status::kOk && s != gw::Status::kBufferFull && added != 0) std::abort();
    if (fe->ring().size() > kMaxSamples) std::abort();
    if (fe->ring().size() > 8000) fe->ring().DiscardUntil(fe->ring().write_pos());

    size_t n = 0;
    if (dec48->Decode(packet, len, out.data(), &n) == gw::Status::kOk) {
      const int expected = dec48->PacketSamples(packet, len);
      if (expected < 0 || static_cast<size_t>(expected) != n) std::abort();
    }
    at += 1 + len;
  }
  return 0;
}
