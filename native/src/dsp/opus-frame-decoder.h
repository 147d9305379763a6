// libopus decoder producing mono float at 8, 12, 16, 24 or 48 kHz. Stereo streams are
// down-mixed by libopus itself (the decoder is created with one output channel).
// Memory is allocated once in Create(); Decode() allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "dsp/status.h"

struct OpusDecoder;

namespace gw {

class OpusFrameDecoder {
 public:
  // Largest packet duration (120 ms) at 48 kHz.
  static constexpr size_t kMaxFrameSamples48k = 5760;

  static std::unique_ptr<OpusFrameDecoder> Create(int sample_rate);
  ~OpusFrameDecoder();
  OpusFrameDecoder(const OpusFrameDecoder&) = delete;
  OpusFrameDecoder& operator=(const OpusFrameDecoder&) = delete;

  // Samples one packet decodes to at this decoder's rate, or a negative value when the
  // packet's TOC/frame count is invalid.
  int PacketSamples(const uint8_t* packet, size_t len) const;

  // Decodes one packet into out (room for max_frame_samples()); returns the sample count.
  // A zero-length packet is rejected (kOpusEmptyPacket); there is no loss concealment
  // because WebSocket delivery is reliable.
  Status Decode(const uint8_t* packet, size_t len, float* out, size_t* samples);

  // Output gain in Q8 dB (OpusHead's output gain).
  void SetGainQ8(int gain_q8);
  void Reset();

  int sample_rate() const { return sample_rate_; }
  size_t max_frame_samples() const { return kMaxFrameSamples48k * sample_rate_ / 48000; }

 private:
  OpusFrameDecoder(OpusDecoder* decoder, int sample_rate)
      : decoder_(decoder), sample_rate_(sample_rate) {}
  OpusDecoder* decoder_;
  int sample_rate_;
};

}  // namespace gw
