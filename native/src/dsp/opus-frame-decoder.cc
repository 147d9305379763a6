#include "dsp/opus-frame-decoder.h"

#include <opus.h>

#include <climits>

namespace gw {

std::unique_ptr<OpusFrameDecoder> OpusFrameDecoder::Create(int sample_rate) {
  if (sample_rate != 8000 && sample_rate != 12000 && sample_rate != 16000 && sample_rate != 24000 &&
      sample_rate != 48000) {
    return nullptr;
  }
  int error = OPUS_OK;
  OpusDecoder* decoder = opus_decoder_create(sample_rate, 1, &error);
  if (decoder == nullptr || error != OPUS_OK) return nullptr;
  return std::unique_ptr<OpusFrameDecoder>(new OpusFrameDecoder(decoder, sample_rate));
}

OpusFrameDecoder::~OpusFrameDecoder() { opus_decoder_destroy(decoder_); }

int OpusFrameDecoder::PacketSamples(const uint8_t* packet, size_t len) const {
  if (len == 0 || len > INT_MAX) return -1;
  const int n = opus_packet_get_nb_samples(packet, static_cast<opus_int32>(len), sample_rate_);
  return n < 0 ? -1 : n;
}

Status OpusFrameDecoder::Decode(const uint8_t* packet, size_t len, float* out, size_t* samples) {
  *samples = 0;
  if (len == 0) return Status::kOpusEmptyPacket;
  if (len > INT_MAX) return Status::kOpusInvalidPacket;
  const int n = opus_decode_float(decoder_, packet, static_cast<opus_int32>(len), out,
                                  static_cast<int>(max_frame_samples()), 0);
  if (n < 0) return Status::kOpusInvalidPacket;
  *samples = static_cast<size_t>(n);
  return Status::kOk;
}

void OpusFrameDecoder::SetGainQ8(int gain_q8) {
  opus_decoder_ctl(decoder_, OPUS_SET_GAIN(gain_q8));
}

void OpusFrameDecoder::Reset() { opus_decoder_ctl(decoder_, OPUS_RESET_STATE); }

}  // namespace gw
