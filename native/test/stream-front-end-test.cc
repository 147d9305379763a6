#include <cstdio>
#include <random>
#include <vector>

#include "dsp/stream-front-end.h"
#include "front-end-test-util.h"
#include "opus-test-util.h"
#include "test-harness.h"
#include "test-signals.h"
#include "wav-test-writer.h"
#include "webm-test-writer.h"

using gw::AudioFormat;
using gw::EndpointEvent;
using gw::Status;
using gw::StreamFrontEnd;
using namespace gwtest;

namespace {

std::vector<uint8_t> Pcm16(const std::vector<float>& x) {
  std::vector<uint8_t> b;
  for (float v : x) {
    const int16_t q = static_cast<int16_t>(std::lround(v * 32767.0f));
    b.push_back(static_cast<uint8_t>(q));
    b.push_back(static_cast<uint8_t>(q >> 8));
  }
  return b;
}

// Samples of speech-16k.wav (the committed fixture) as float.
std::vector<float> FixtureSpeech() {
  const auto wav = ReadFile(FixturePath("speech-16k.wav"));
  std::vector<float> x;
  if (wav.size() < 44) return x;
  for (size_t i = 44; i + 1 < wav.size(); i += 2) {
    x.push_back(static_cast<int16_t>(wav[i] | (wav[i + 1] << 8)) / 32768.0f);
  }
  return x;
}

std::vector<EndpointEvent> Events(StreamFrontEnd* fe) {
  std::vector<EndpointEvent> ev(fe->events().size());
  fe->events().Pop(ev.data(), ev.size());
  return ev;
}

}  // namespace

GW_TEST(FrontEndPcm16OddSplitsAreLossless) {
  auto fe = MakeFrontEnd(AudioFormat::kPcmS16le);
  const auto x = Tone(440.0, 16000, 16001, 0.5);
  const auto bytes = Pcm16(x);
  GW_CHECK_STATUS(PushSplit(fe.get(), bytes, 1), Status::kOk);
  const auto y = DrainFrontEnd(fe.get());
  GW_CHECK_EQ(y.size(), x.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i)
    worst = std::max(worst, std::fabs(double(x[i]) - y[i]));
  GW_CHECK(worst < 1.0 / 32768 * 1.5);
}

GW_TEST(FrontEndPcm48kResamples) {
  auto fe = MakeFrontEnd(AudioFormat::kPcmS16le48k);
  const auto x = Tone(1000.0, 48000, 48000, 0.5);
  const auto y = PushFlushDrain(fe.get(), Pcm16(x), 2);
  GW_CHECK_EQ(y.size(), 16000u);
  const auto ideal = Tone(1000.0, 16000, y.size(), 0.5);
  double err = 0;
  for (size_t m = 200; m + 200 < y.size(); ++m)
    err = std::max(err, std::fabs(double(y[m]) - ideal[m]));
  GW_CHECK(err < 2e-3);
}

GW_TEST(FrontEndWavAt44100Stereo) {
  auto fe = MakeFrontEnd(AudioFormat::kWav);
  WavSpec s;
  s.rate = 44100;
  s.channels = 2;
  std::vector<std::vector<double>> frames(44100);
  for (size_t i = 0; i < frames.size(); ++i) {
    const double v = 0.5 * std::sin(2 * kPi * 500.0 * i / 44100.0);
    frames[i] = {v, v};
  }
  const auto y = PushFlushDrain(fe.get(), MakeWav(s, frames), 3);
  GW_CHECK_EQ(y.size(), 16000u);
  const ToneFit fit = FitTone(y.data(), 300, y.size() - 300, 500.0, 16000);
  GW_CHECK_NEAR(fit.amplitude, 0.5, 0.002);
  GW_CHECK(ToneSnrDb(fit) > 60.0);
}

GW_TEST(FrontEndWavRejectsNonPcmClearly) {
  auto fe = MakeFrontEnd(AudioFormat::kWav);
  WavSpec s;
  s.tag = 7;  // mu-law
  s.bits = 8;
  std::vector<std::vector<double>> frames(100, std::vector<double>{0.0});
  const auto wav = MakeWav(s, frames);
  GW_CHECK_STATUS(fe->Push(wav.data(), wav.size()), Status::kWavNotPcm);
  GW_CHECK_EQ(fe->wav()->rejected_format_tag(), 7);
  // A FORMAT command resets the parser.
  GW_CHECK_STATUS(fe->SetFormat(AudioFormat::kPcmS16le), Status::kOk);
  const uint8_t two[4] = {1, 0, 2, 0};
  GW_CHECK_STATUS(fe->Push(two, 4), Status::kOk);
  GW_CHECK_EQ(fe->ring().size(), 2u);
}

GW_TEST(FrontEndRawOpusOneFramePerMessage) {
  auto fe = MakeFrontEnd(AudioFormat::kOpusRaw16k);
  const auto x = Tone(300.0, 16000, 16000, 0.3);
  const auto packets = EncodeOpus(x, 16000, 20);
  for (const auto& p : packets) GW_CHECK_STATUS(fe->Push(p.data(), p.size()), Status::kOk);
  GW_CHECK_EQ(fe->ring().size(), 16000u);
  GW_CHECK_EQ(fe->counters().packets_decoded, 50u);
  // 40 ms and 10 ms packets are refused without touching the buffer.
  const auto p40 = EncodeOpus(x, 16000, 40);
  const auto p10 = EncodeOpus(x, 16000, 10);
  GW_CHECK_STATUS(fe->Push(p40[0].data(), p40[0].size()), Status::kOpusFrameDuration);
  GW_CHECK_STATUS(fe->Push(p10[0].data(), p10[0].size()), Status::kOpusFrameDuration);
  GW_CHECK_STATUS(fe->Push(nullptr, 0), Status::kOpusEmptyPacket);
  GW_CHECK_EQ(fe->ring().size(), 16000u);
  // Still usable.
  GW_CHECK_STATUS(fe->Push(packets[0].data(), packets[0].size()), Status::kOk);
}

GW_TEST(FrontEndWebmOpusBothDecodeRates) {
  const auto x = Tone(700.0, 48000, 48000 * 2, 0.3);
  const auto packets = EncodeOpus(x, 48000, 20, 64000);
  const auto webm = MakeWebm(packets);
  for (int rate : {16000, 48000}) {
    auto fe = MakeFrontEnd(AudioFormat::kWebmOpus, 25000000, rate);
    const auto y = PushFlushDrain(fe.get(), webm, 4);
    // 100 packets of 20 ms minus the 312-sample pre-skip at 48 kHz (104 at 16 kHz).
    GW_CHECK_EQ(y.size(), 32000u - 104u);
    const ToneFit fit = FitTone(y.data(), 1600, y.size() - 400, 700.0, 16000);
    const double snr = ToneSnrDb(fit);
    std::printf("  WEBM decode@%d: tone amplitude %.3f (in 0.3), SNR %.1f dB\n", rate,
                fit.amplitude, snr);
    GW_CHECK_NEAR(fit.amplitude, 0.3, 0.03);
    GW_CHECK(snr > 25.0);
  }
}

GW_TEST(FrontEndWebmDiscardPaddingTrimsTheEnd) {
  const auto x = Tone(700.0, 48000, 48000, 0.3);
  const auto packets = EncodeOpus(x, 48000, 20, 64000);
  WebmOptions o;
  o.block_groups = true;
  o.discard_padding_ns = 12500000;  // 12.5 ms: 200 samples at 16 kHz, 600 at 48 kHz
  const auto webm = MakeWebm(packets, o);
  for (int rate : {16000, 48000}) {
    auto fe = MakeFrontEnd(AudioFormat::kWebmOpus, 25000000, rate);
    // 50 packets of 20 ms, minus the pre-skip (104 samples at 16 kHz) and the padding (200).
    GW_CHECK_EQ(PushFlushDrain(fe.get(), webm, 3).size(), 16000u - 104u - 200u);
  }
}

GW_TEST(FrontEndBufferFullKeepsAcceptedAudio) {
  auto fe = MakeFrontEnd(AudioFormat::kPcmS16le, 1000);
  std::vector<uint8_t> bytes(1600, 0x11);
  GW_CHECK_STATUS(fe->Push(bytes.data(), bytes.size()), Status::kOk);
  GW_CHECK_STATUS(fe->Push(bytes.data(), bytes.size()), Status::kBufferFull);
  GW_CHECK_EQ(fe->ring().size(), 1000u);
  GW_CHECK_EQ(fe->counters().appended_last, 200u);
  GW_CHECK_EQ(fe->counters().dropped_last, 600u);
  int16_t first = 0;
  fe->ring().Read(&first, 1);
  GW_CHECK_EQ(first, 0x1111);
  GW_CHECK_STATUS(fe->Push(bytes.data(), 2), Status::kOk);  // room for one again
}

GW_TEST(FrontEndEnergyEndpointingOnSpeechFixture) {
  const auto speech = FixtureSpeech();
  GW_CHECK(speech.size() > 16000 * 8);
  auto fe = MakeFrontEnd(AudioFormat::kPcmS16le);
  GW_CHECK_STATUS(PushSplit(fe.get(), Pcm16(speech), 5), Status::kOk);
  GW_CHECK_STATUS(fe->Flush(), Status::kOk);
  const auto ev = Events(fe.get());
  for (const auto& e : ev) {
    std::printf("  event %s at %.2f s (turn from %.2f s)\n",
                e.type == gw::EventType::kSpeechStart ? "start" : "end", e.position / 16000.0,
                e.turn_start / 16000.0);
  }
  // Two utterances: about 0.6-2.5 s and 4.7-7.5 s.
  GW_CHECK_EQ(ev.size(), 4u);
  if (ev.size() != 4) return;
  GW_CHECK(ev[0].position > 0.2 * 16000 && ev[0].position < 0.7 * 16000);
  GW_CHECK(ev[1].position > 2.4 * 16000 && ev[1].position < 3.2 * 16000);
  GW_CHECK(ev[2].position > 4.3 * 16000 && ev[2].position < 5.6 * 16000);
  GW_CHECK(ev[3].position > 7.3 * 16000 && ev[3].position < 8.5 * 16000);
}

GW_TEST(FrontEndClearDropsAudioAndTurn) {
  auto fe = MakeFrontEnd(AudioFormat::kPcmS16le);
  const auto x = Tone(300.0, 16000, 16000, 0.3);
  auto bytes = Pcm16(std::vector<float>(16000, 0.0f));
  auto tone = Pcm16(x);
  bytes.insert(bytes.end(), tone.begin(), tone.end());
  fe->Push(bytes.data(), bytes.size());
  GW_CHECK(fe->endpointer()->in_speech());
  fe->Clear();
  GW_CHECK_EQ(fe->ring().size(), 0u);
  GW_CHECK(!fe->endpointer()->in_speech());
  GW_CHECK_EQ(fe->endpointer()->position(), fe->ring().write_pos());
  GW_CHECK_EQ(fe->events().size(), 0u);
}
