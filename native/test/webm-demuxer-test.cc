#include <random>
#include <vector>

#include "collecting-sinks.h"
#include "dsp/webm-demuxer.h"
#include "test-harness.h"
#include "webm-test-writer.h"

using gw::Status;
using gw::WebmAudioTrack;
using gw::WebmDemuxer;
using namespace gwtest;

namespace {

using Recorder = WebmRecorder;

std::vector<Bytes> FakePackets(size_t count, std::mt19937* rng) {
  std::vector<Bytes> packets;
  for (size_t i = 0; i < count; ++i) {
    Bytes p(20 + (*rng)() % 300);
    for (auto& b : p) b = static_cast<uint8_t>((*rng)());
    packets.push_back(p);
  }
  return packets;
}

// Feeds `data` in chunks drawn by `next_chunk`; returns the last status.
template <typename Next>
Status Feed(WebmDemuxer* d, Recorder* r, const Bytes& data, Next next_chunk) {
  Status s = Status::kOk;
  for (size_t at = 0; at < data.size();) {
    const size_t n = std::min(data.size() - at, next_chunk());
    s = d->Push(data.data() + at, n, r);
    if (s != Status::kOk) return s;
    at += n;
  }
  return s;
}

void ExpectFrames(const WebmOptions& o, size_t count) {
  std::mt19937 rng(42);
  auto packets = FakePackets(count, &rng);
  const Bytes stream = MakeWebm(packets, o);
  if (o.lacing == 2) {
    // The writer padded fixed-laced groups to equal sizes.
    for (size_t at = 0; at + 3 <= packets.size(); at += 3) {
      size_t longest = 0;
      for (size_t k = at; k < at + 3; ++k) longest = std::max(longest, packets[k].size());
      for (size_t k = at; k < at + 3; ++k) packets[k].resize(longest, 0);
    }
  }
  // Whole, byte by byte, and random splits must all give the same frames.
  const size_t splits[] = {0, 1, 2};
  for (size_t mode : splits) {
    WebmDemuxer d;
    Recorder r;
    std::mt19937 chunk_rng(static_cast<unsigned>(mode + 1));
    const Status s = Feed(&d, &r, stream, [&]() -> size_t {
      if (mode == 0) return stream.size();
      if (mode == 1) return 1;
      return 1 + chunk_rng() % 700;
    });
    GW_CHECK_STATUS(s, Status::kOk);
    GW_CHECK_EQ(r.tracks.size(), 1u);
    GW_CHECK_EQ(r.frames.size(), packets.size());
    bool same = r.frames.size() == packets.size();
    for (size_t i = 0; same && i < packets.size(); ++i) same = r.frames[i] == packets[i];
    GW_CHECK(same);
    if (!r.tracks.empty()) {
      GW_CHECK_EQ(r.tracks[0].number, 1u);
      GW_CHECK_EQ(r.tracks[0].channels, o.channels);
      GW_CHECK_EQ(r.tracks[0].pre_skip, o.pre_skip);
      GW_CHECK_NEAR(r.tracks[0].sampling_frequency, 48000.0, 0.0);
    }
  }
}

Status ParseAll(const Bytes& stream, Recorder* r) {
  WebmDemuxer d;
  return d.Push(stream.data(), stream.size(), r);
}

}  // namespace

GW_TEST(WebmUnknownSizeClustersAnySplit) { ExpectFrames(WebmOptions{}, 57); }

GW_TEST(WebmKnownSizes) {
  WebmOptions o;
  o.unknown_sizes = false;
  ExpectFrames(o, 31);
}

// Lacing: 1 Xiph, 2 fixed-size, 3 EBML.
static WebmOptions Laced(int lacing) {
  WebmOptions o;
  o.lacing = lacing;
  return o;
}

GW_TEST(WebmXiphLacing) { ExpectFrames(Laced(1), 30); }

GW_TEST(WebmFixedLacing) { ExpectFrames(Laced(2), 30); }

GW_TEST(WebmEbmlLacing) { ExpectFrames(Laced(3), 30); }

GW_TEST(WebmSkipsVideoBlocksAndReadsBlockGroups) {
  WebmOptions o;
  o.video_track = true;
  o.block_groups = true;
  ExpectFrames(o, 25);
}

GW_TEST(WebmDiscardPaddingReachesTheLastFrameOnly) {
  std::mt19937 rng(7);
  const auto packets = FakePackets(23, &rng);
  for (int lacing : {0, 1}) {
    WebmOptions o;
    o.block_groups = true;
    o.lacing = lacing;
    o.discard_padding_ns = 6500000;  // 6.5 ms
    const Bytes stream = MakeWebm(packets, o);
    for (size_t max_chunk : {stream.size(), size_t{1}, size_t{97}}) {
      WebmDemuxer d;
      Recorder r;
      GW_CHECK_STATUS(Feed(&d, &r, stream, [&]() -> size_t { return max_chunk; }), Status::kOk);
      GW_CHECK_EQ(r.frames.size(), packets.size());
      size_t with_padding = 0;
      for (uint64_t v : r.discards) with_padding += v != 0;
      GW_CHECK_EQ(with_padding, 1u);
      if (!r.discards.empty()) GW_CHECK_EQ(r.discards.back(), 6500000u);
    }
  }
  // A negative DiscardPadding (not end padding) is ignored.
  WebmOptions negative;
  negative.block_groups = true;
  negative.discard_padding_ns = -2500000;
  Recorder n;
  GW_CHECK_STATUS(ParseAll(MakeWebm(packets, negative), &n), Status::kOk);
  for (uint64_t v : n.discards) GW_CHECK_EQ(v, 0u);
  // SimpleBlocks and BlockGroups without DiscardPadding carry none.
  WebmOptions plain;
  plain.block_groups = true;
  Recorder r;
  GW_CHECK_STATUS(ParseAll(MakeWebm(packets, plain), &r), Status::kOk);
  for (uint64_t v : r.discards) GW_CHECK_EQ(v, 0u);
}

GW_TEST(WebmStereoTrack) {
  WebmOptions o;
  o.channels = 2;
  ExpectFrames(o, 5);
}

GW_TEST(WebmRestartedRecorderStartsNewStream) {
  std::mt19937 rng(3);
  const auto a = FakePackets(12, &rng);
  const auto b = FakePackets(9, &rng);
  Bytes stream = MakeWebm(a);
  Append(&stream, MakeWebm(b));
  Recorder r;
  GW_CHECK_STATUS(ParseAll(stream, &r), Status::kOk);
  GW_CHECK_EQ(r.tracks.size(), 2u);
  GW_CHECK_EQ(r.frames.size(), a.size() + b.size());
}

GW_TEST(WebmTrackKnownBeforeFirstCluster) {
  // Tracks closes at its known end even when the chunk ends exactly there.
  Bytes head = EbmlHeader("webm");
  Append(&head, Id(0x18538067));
  Append(&head, UnknownSize());
  Append(&head, TracksElement(WebmOptions{}));
  WebmDemuxer d;
  Recorder r;
  GW_CHECK_STATUS(d.Push(head.data(), head.size(), &r), Status::kOk);
  GW_CHECK_EQ(r.tracks.size(), 1u);
  GW_CHECK(d.has_audio_track());
}

GW_TEST(WebmRejectsWhatItCannotRead) {
  std::mt19937 rng(9);
  const auto packets = FakePackets(4, &rng);
  Recorder r;
  // Not EBML at all (a WAV header).
  const Bytes wav = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'A', 'V', 'E'};
  GW_CHECK_STATUS(ParseAll(wav, &r), Status::kWebmNotWebm);
  // Wrong DocType.
  WebmOptions o;
  o.doc_type = "notwebm";
  GW_CHECK_STATUS(ParseAll(MakeWebm(packets, o), &r), Status::kWebmNotWebm);
  // Vorbis.
  o = WebmOptions{};
  o.codec = "A_VORBIS";
  GW_CHECK_STATUS(ParseAll(MakeWebm(packets, o), &r), Status::kWebmUnsupportedCodec);
  // Six channels.
  o = WebmOptions{};
  o.channels = 6;
  GW_CHECK_STATUS(ParseAll(MakeWebm(packets, o), &r), Status::kWebmUnsupportedChannels);
  // A cluster before any track.
  Bytes s = EbmlHeader("webm");
  Append(&s, Id(0x18538067));
  Append(&s, UnknownSize());
  Append(&s, Element(0x1F43B675, Element(0xA3, BlockBody(1, 0, 0x80, packets[0]))));
  GW_CHECK_STATUS(ParseAll(s, &r), Status::kWebmNoAudioTrack);
  // Unknown size on Tracks.
  s = EbmlHeader("webm");
  Append(&s, Id(0x18538067));
  Append(&s, UnknownSize());
  Append(&s, Id(0x1654AE6B));
  Append(&s, UnknownSize());
  GW_CHECK_STATUS(ParseAll(s, &r), Status::kWebmUnknownSizeElement);
  // A child larger than its parent.
  s = EbmlHeader("webm");
  Bytes seg = Id(0x1654AE6B);
  Append(&seg, Size(100));
  seg.resize(seg.size() + 10, 0xEC);
  Append(&s, Element(0x18538067, seg));
  GW_CHECK_STATUS(ParseAll(s, &r), Status::kWebmInvalid);
  // An invalid ID byte.
  s = EbmlHeader("webm");
  s.push_back(0x00);
  GW_CHECK_STATUS(ParseAll(s, &r), Status::kWebmInvalid);
}

GW_TEST(WebmBadLacingAndStickyErrors) {
  std::mt19937 rng(11);
  const auto packets = FakePackets(2, &rng);
  Bytes s = EbmlHeader("webm");
  Append(&s, Id(0x18538067));
  Append(&s, UnknownSize());
  Append(&s, TracksElement(WebmOptions{}));
  // Xiph lacing claiming a first frame larger than the block.
  Bytes frames = {1, 255, 255, 10};
  Append(&frames, packets[0]);
  Append(&s, Element(0x1F43B675, Element(0xA3, BlockBody(1, 0, 0x82, frames))));
  WebmDemuxer d;
  Recorder r;
  GW_CHECK_STATUS(d.Push(s.data(), s.size(), &r), Status::kWebmInvalidLacing);
  const uint8_t more[] = {0xA3, 0x81, 0x00};
  GW_CHECK_STATUS(d.Push(more, sizeof more, &r), Status::kWebmInvalidLacing);
  d.Reset();
  Bytes good = MakeWebm(packets);
  GW_CHECK_STATUS(d.Push(good.data(), good.size(), &r), Status::kOk);
}

GW_TEST(WebmOversizedAudioBlockIsSkippedNotFatal) {
  std::mt19937 rng(13);
  auto packets = FakePackets(3, &rng);
  packets[1].resize(20000, 0x11);  // larger than the 16 KiB block buffer
  const Bytes stream = MakeWebm(packets);
  WebmDemuxer d;
  Recorder r;
  // Split so that the big block cannot be parsed in place.
  Status worst = Status::kOk;
  for (size_t at = 0; at < stream.size(); at += 1000) {
    const Status s = d.Push(stream.data() + at, std::min<size_t>(1000, stream.size() - at), &r);
    if (s != Status::kOk) worst = s;
  }
  GW_CHECK_STATUS(worst, Status::kWebmBlockTooLarge);
  GW_CHECK_EQ(r.frames.size(), 2u);
}

namespace {

// Demuxes a fixture file three times in random chunks of 1..max_chunk bytes: each round must
// succeed with one audio track, then passes `check`.
template <typename Check>
void DemuxFixture(const char* name, unsigned seed, unsigned max_chunk, Check check) {
  const Bytes data = ReadFile(FixturePath(name));
  GW_CHECK(!data.empty());
  std::mt19937 rng(seed);
  for (int round = 0; round < 3; ++round) {
    WebmDemuxer d;
    Recorder r;
    const Status s = Feed(&d, &r, data, [&]() -> size_t { return 1 + rng() % max_chunk; });
    GW_CHECK_STATUS(s, Status::kOk);
    GW_CHECK_EQ(r.tracks.size(), 1u);
    check(r);
  }
}

}  // namespace

GW_TEST(WebmFfmpegFixture) {
  DemuxFixture("speech-48k-opus.webm", 17, 997, [](const Recorder& r) {
    GW_CHECK(r.frames.size() > 100);  // about 3 s of 20 ms frames
  });
}

GW_TEST(WebmChromiumMediaRecorderFixture) {
  DemuxFixture("mediarecorder-chromium.webm", 23, 2500, [](const Recorder& r) {
    if (!r.tracks.empty()) GW_CHECK_EQ(r.tracks[0].channels, 2);
    GW_CHECK_EQ(r.frames.size(), 147u);  // 8.8 s in 60 ms packets
  });
}
