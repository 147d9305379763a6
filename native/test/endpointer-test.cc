#include <vector>

#include "dsp/endpointer.h"
#include "test-harness.h"

using gw::Endpointer;
using gw::EndpointerConfig;
using gw::EndpointEvent;
using gw::EventQueue;
using gw::EventType;
using namespace gwtest;

namespace {

// hop 160 samples = 10 ms at 16 kHz keeps the arithmetic readable.
EndpointerConfig Config() {
  EndpointerConfig c;
  c.hop_samples = 160;
  c.min_speech_ms = 100;
  c.min_silence_ms = 200;
  c.pre_pad_ms = 50;
  c.post_pad_ms = 100;
  c.max_speech_ms = 0;
  return c;
}

std::vector<EndpointEvent> Run(Endpointer* ep, const std::vector<float>& probs, bool flush) {
  EventQueue q;
  for (float p : probs) ep->Push(p, &q);
  if (flush) ep->Flush(&q);
  std::vector<EndpointEvent> out(q.size());
  q.Pop(out.data(), out.size());
  return out;
}

// frames: pairs of (probability, count)
std::vector<float> Probs(std::initializer_list<std::pair<float, int>> runs) {
  std::vector<float> p;
  for (const auto& r : runs) p.insert(p.end(), static_cast<size_t>(r.second), r.first);
  return p;
}

}  // namespace

GW_TEST(EndpointerStartEndWithPadding) {
  Endpointer ep(Config());
  // 50 frames silence, 30 frames speech, 40 frames silence.
  const auto ev = Run(&ep, Probs({{0.1f, 50}, {0.9f, 30}, {0.1f, 40}}), false);
  GW_CHECK_EQ(ev.size(), 2u);
  if (ev.size() != 2) return;
  GW_CHECK(ev[0].type == EventType::kSpeechStart);
  GW_CHECK_EQ(ev[0].position, 50u * 160 - 800);  // onset - 50 ms
  GW_CHECK(ev[1].type == EventType::kSpeechEnd);
  GW_CHECK_EQ(ev[1].position, 80u * 160 + 1600);  // last speech frame end + 100 ms
  GW_CHECK_EQ(ev[1].turn_start, ev[0].position);
}

GW_TEST(EndpointerIgnoresShortBurstsAndShortPauses) {
  Endpointer ep(Config());
  // A 50 ms burst (below min speech), then speech with a 150 ms pause (below min silence).
  const auto ev = Run(
      &ep,
      Probs({{0.1f, 30}, {0.9f, 5}, {0.1f, 30}, {0.9f, 20}, {0.1f, 15}, {0.9f, 20}, {0.1f, 30}}),
      false);
  GW_CHECK_EQ(ev.size(), 2u);
  if (ev.size() != 2) return;
  GW_CHECK_EQ(ev[0].position, 65u * 160 - 800);
  GW_CHECK_EQ(ev[1].position, 120u * 160 + 1600);
}

GW_TEST(EndpointerHysteresisKeepsSpeechBetweenThresholds) {
  Endpointer ep(Config());
  // 0.4 is below start (0.5) but above end (0.35): it continues a turn.
  const auto ev = Run(&ep, Probs({{0.9f, 20}, {0.4f, 100}, {0.1f, 30}}), false);
  GW_CHECK_EQ(ev.size(), 2u);
  if (ev.size() == 2) GW_CHECK_EQ(ev[1].position, 120u * 160 + 1600);
}

GW_TEST(EndpointerSplitsLongTurnsAndFlushes) {
  EndpointerConfig c = Config();
  c.max_speech_ms = 1000;
  Endpointer ep(c);
  const auto ev = Run(&ep, Probs({{0.9f, 250}}), true);
  // Start at 0, forced splits at 1 s and 2 s, end of stream at 2.5 s.
  GW_CHECK_EQ(ev.size(), 6u);
  if (ev.size() != 6) return;
  GW_CHECK_EQ(ev[0].position, 0u);
  GW_CHECK(ev[1].type == EventType::kSpeechEnd && ev[1].flags == gw::kFlagForcedSplit);
  GW_CHECK_EQ(ev[1].position, 16000u);
  GW_CHECK(ev[2].type == EventType::kSpeechStart);
  GW_CHECK_EQ(ev[2].position, 16000u);
  GW_CHECK_EQ(ev[4].position, 32000u);
  GW_CHECK(ev[5].flags == gw::kFlagEndOfStream);
  GW_CHECK_EQ(ev[5].position, 40000u);
  GW_CHECK_EQ(ev[5].turn_start, 32000u);
}

GW_TEST(EndpointerPrePadNeverOverlapsPreviousTurn) {
  EndpointerConfig c = Config();
  c.pre_pad_ms = 1000;
  Endpointer ep(c);
  const auto ev = Run(&ep, Probs({{0.9f, 20}, {0.1f, 25}, {0.9f, 20}, {0.1f, 25}}), false);
  GW_CHECK_EQ(ev.size(), 4u);
  if (ev.size() == 4) GW_CHECK_EQ(ev[2].position, ev[1].position);
}

GW_TEST(EndpointerResetAtContinuesFromPosition) {
  Endpointer ep(Config());
  EventQueue q;
  for (int i = 0; i < 30; ++i) ep.Push(0.9f, &q);
  GW_CHECK(ep.in_speech());
  ep.ResetAt(100000);
  GW_CHECK(!ep.in_speech());
  q.Clear();
  for (int i = 0; i < 20; ++i) ep.Push(0.9f, &q);
  EndpointEvent e{};
  GW_CHECK_EQ(q.Pop(&e, 1), 1u);
  GW_CHECK_EQ(e.position, 100000u);  // pre-pad clamped to the reset position
}

GW_TEST(EndpointerValidatesConfig) {
  EndpointerConfig c = Config();
  GW_CHECK(Endpointer::Validate(c) == gw::Status::kOk);
  c.end_threshold = 0.8f;
  GW_CHECK(Endpointer::Validate(c) == gw::Status::kInvalidArgument);
  c = Config();
  c.min_silence_ms = 10;
  GW_CHECK(Endpointer::Validate(c) == gw::Status::kInvalidArgument);
}
