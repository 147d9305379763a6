// Encodes test signals with libopus's encoder (compiled in with the decoder) so that the
// decoder tests use real packets.
#pragma once

#include <opus.h>

#include <cstdint>
#include <vector>

namespace gwtest {

// Encodes mono float at `rate` into packets of `frame_ms`; the tail that does not fill a
// frame is dropped.
inline std::vector<std::vector<uint8_t>> EncodeOpus(const std::vector<float>& pcm, int rate,
                                                    int frame_ms, int bitrate = 32000,
                                                    int channels = 1) {
  int err = 0;
  OpusEncoder* enc = opus_encoder_create(rate, channels, OPUS_APPLICATION_AUDIO, &err);
  opus_encoder_ctl(enc, OPUS_SET_BITRATE(bitrate));
  const int frame = rate * frame_ms / 1000;
  std::vector<std::vector<uint8_t>> packets;
  std::vector<float> interleaved(static_cast<size_t>(frame * channels));
  uint8_t buf[4000];
  for (size_t at = 0; at + frame <= pcm.size(); at += frame) {
    for (int i = 0; i < frame; ++i) {
      for (int c = 0; c < channels; ++c)
        interleaved[static_cast<size_t>(i * channels + c)] = pcm[at + i];
    }
    const int n = opus_encode_float(enc, interleaved.data(), frame, buf, sizeof buf);
    if (n < 0) break;
    packets.emplace_back(buf, buf + n);
  }
  opus_encoder_destroy(enc);
  return packets;
}

}  // namespace gwtest
