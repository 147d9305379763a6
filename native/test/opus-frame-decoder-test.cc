#include <cstdio>
#include <vector>

#include "dsp/opus-frame-decoder.h"
#include "opus-test-util.h"
#include "test-harness.h"
#include "test-signals.h"

using gw::OpusFrameDecoder;
using gw::Status;
using namespace gwtest;

GW_TEST(OpusDecodesEncodedToneAtSixteenKilohertz) {
  const auto pcm = Tone(440.0, 16000, 16000, 0.4);
  const auto packets = EncodeOpus(pcm, 16000, 20, 32000);
  GW_CHECK_EQ(packets.size(), 50u);
  auto dec = OpusFrameDecoder::Create(16000);
  std::vector<float> out;
  std::vector<float> frame(dec->max_frame_samples());
  for (const auto& p : packets) {
    GW_CHECK_EQ(dec->PacketSamples(p.data(), p.size()), 320);
    size_t n = 0;
    GW_CHECK_STATUS(dec->Decode(p.data(), p.size(), frame.data(), &n), Status::kOk);
    GW_CHECK_EQ(n, 320u);
    out.insert(out.end(), frame.begin(), frame.begin() + static_cast<long>(n));
  }
  // The codec delays the signal; a tone fit is phase-independent.
  const ToneFit fit = FitTone(out.data(), 1600, out.size(), 440.0, 16000);
  const double snr = ToneSnrDb(fit);
  std::printf("  OPUS 16k round trip 440 Hz: amplitude %.3f (in 0.4), SNR %.1f dB\n", fit.amplitude,
              snr);
  GW_CHECK_NEAR(fit.amplitude, 0.4, 0.04);
  GW_CHECK(snr > 20.0);
}

GW_TEST(OpusDecodesStereoPacketsToMono) {
  const auto pcm = Tone(1000.0, 48000, 48000, 0.3);
  const auto packets = EncodeOpus(pcm, 48000, 20, 64000, 2);
  auto dec = OpusFrameDecoder::Create(48000);
  std::vector<float> out, frame(dec->max_frame_samples());
  for (const auto& p : packets) {
    size_t n = 0;
    GW_CHECK_STATUS(dec->Decode(p.data(), p.size(), frame.data(), &n), Status::kOk);
    out.insert(out.end(), frame.begin(), frame.begin() + static_cast<long>(n));
  }
  const ToneFit fit = FitTone(out.data(), 4800, out.size(), 1000.0, 48000);
  GW_CHECK_NEAR(fit.amplitude, 0.3, 0.03);
}

GW_TEST(OpusRejectsBadPackets) {
  auto dec = OpusFrameDecoder::Create(16000);
  std::vector<float> frame(dec->max_frame_samples());
  size_t n = 7;
  GW_CHECK_STATUS(dec->Decode(nullptr, 0, frame.data(), &n), Status::kOpusEmptyPacket);
  GW_CHECK_EQ(n, 0u);
  // TOC code 3 without its frame-count byte, and with a frame count of 0.
  const uint8_t truncated[] = {0x03};
  GW_CHECK(dec->PacketSamples(truncated, sizeof truncated) < 0);
  const uint8_t bad[] = {0x03, 0x00};
  GW_CHECK(dec->PacketSamples(bad, sizeof bad) <= 0);
  GW_CHECK_STATUS(dec->Decode(bad, sizeof bad, frame.data(), &n), Status::kOpusInvalidPacket);
  GW_CHECK(OpusFrameDecoder::Create(44100) == nullptr);
}
