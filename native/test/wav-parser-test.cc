#include <cstdio>
#include <random>
#include <vector>

#include "collecting-sinks.h"
#include "dsp/wav-parser.h"
#include "test-harness.h"
#include "wav-test-writer.h"

using gw::Status;
using gw::WavFormat;
using gw::WavParser;
using namespace gwtest;

namespace {

using Collector = WavCollector;

std::vector<std::vector<double>> Frames(int channels, size_t n) {
  std::vector<std::vector<double>> frames(n, std::vector<double>(static_cast<size_t>(channels)));
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < channels; ++c) {
      frames[i][static_cast<size_t>(c)] = 0.8 * std::sin(0.01 * static_cast<double>(i) * (c + 1));
    }
  }
  return frames;
}

Status ParseSplit(const std::vector<uint8_t>& wav, Collector* c, size_t chunk) {
  WavParser p;
  Status last = Status::kOk;
  for (size_t at = 0; at < wav.size(); at += chunk) {
    last = p.Push(wav.data() + at, std::min(chunk, wav.size() - at), c);
    if (last != Status::kOk) return last;
  }
  return last;
}

}  // namespace

GW_TEST(WavFormatsDecodeToMonoAtAnySplit) {
  struct Case {
    WavSpec spec;
    double tolerance;
  };
  std::vector<Case> cases;
  for (int bits : {8, 16, 24, 32}) {
    WavSpec s;
    s.bits = bits;
    cases.push_back({s, bits == 8 ? 0.012 : 1e-4});
  }
  for (int bits : {32, 64}) {
    WavSpec s;
    s.tag = 3;
    s.bits = bits;
    cases.push_back({s, 1e-6});
  }
  WavSpec ext;
  ext.tag = 0xFFFE;
  ext.sub_tag = 1;
  ext.bits = 24;
  ext.channels = 2;
  ext.rate = 44100;
  cases.push_back({ext, 1e-4});
  WavSpec stereo;
  stereo.channels = 3;
  stereo.rate = 48000;
  stereo.streaming_size = true;
  cases.push_back({stereo, 1e-4});

  for (const auto& c : cases) {
    const auto frames = Frames(c.spec.channels, 1001);
    const auto wav = MakeWav(c.spec, frames);
    for (size_t chunk : {wav.size(), size_t{1}, size_t{7}, size_t{333}}) {
      Collector col;
      GW_CHECK_STATUS(ParseSplit(wav, &col, chunk), Status::kOk);
      GW_CHECK_EQ(col.formats.size(), 1u);
      if (col.formats.empty()) continue;
      GW_CHECK_EQ(col.formats[0].sample_rate, c.spec.rate);
      GW_CHECK_EQ(col.formats[0].channels, c.spec.channels);
      GW_CHECK_EQ(col.samples.size(), frames.size());
      double worst = 0;
      for (size_t i = 0; i < std::min(col.samples.size(), frames.size()); ++i) {
        double mean = 0;
        for (double v : frames[i]) mean += v;
        mean /= c.spec.channels;
        worst = std::max(worst, std::fabs(mean - col.samples[i]));
      }
      if (!(worst < c.tolerance)) {
        std::printf("  tag %d bits %d channels %d chunk %zu: worst error %g\n", c.spec.tag,
                    c.spec.bits, c.spec.channels, chunk, worst);
      }
      GW_CHECK(worst < c.tolerance);
    }
  }
}

GW_TEST(WavRejectsNonPcm) {
  for (int tag : {2, 6, 7, 0x11, 0x55}) {  // ADPCM, A-law, mu-law, IMA ADPCM, MP3
    WavSpec s;
    s.tag = tag;
    s.bits = 8;
    Collector c;
    WavParser p;
    const auto wav = MakeWav(s, Frames(1, 10));
    GW_CHECK_STATUS(p.Push(wav.data(), wav.size(), &c), Status::kWavNotPcm);
    GW_CHECK_EQ(p.rejected_format_tag(), tag);
    // Sticky.
    GW_CHECK_STATUS(p.Push(wav.data(), 4, &c), Status::kWavNotPcm);
  }
  WavSpec ext;
  ext.tag = 0xFFFE;
  ext.sub_tag = 2;
  Collector c;
  GW_CHECK_STATUS(ParseSplit(MakeWav(ext, Frames(1, 4)), &c, 3), Status::kWavNotPcm);
}

GW_TEST(WavRejectsBadHeaders) {
  Collector c;
  const std::vector<uint8_t> not_riff = {'R', 'I', 'F', 'X', 0, 0, 0, 0, 'W', 'A', 'V', 'E'};
  GW_CHECK_STATUS(ParseSplit(not_riff, &c, 100), Status::kWavInvalid);
  WavSpec s;
  s.bits = 12;
  GW_CHECK_STATUS(ParseSplit(MakeWav(s, Frames(1, 4)), &c, 100), Status::kWavUnsupportedBitDepth);
  s = WavSpec{};
  s.channels = 9;
  GW_CHECK_STATUS(ParseSplit(MakeWav(s, Frames(9, 4)), &c, 100), Status::kWavUnsupportedChannels);
  s = WavSpec{};
  s.rate = 16001;
  GW_CHECK_STATUS(ParseSplit(MakeWav(s, Frames(1, 4)), &c, 100), Status::kWavUnsupportedSampleRate);
  s.rate = 4000;
  GW_CHECK_STATUS(ParseSplit(MakeWav(s, Frames(1, 4)), &c, 100), Status::kWavUnsupportedSampleRate);
  // data before fmt
  std::vector<uint8_t> w = {'R', 'I', 'F', 'F', 0,   0, 0, 0, 'W', 'A', 'V',
                            'E', 'd', 'a', 't', 'a', 2, 0, 0, 0,   1,   2};
  GW_CHECK_STATUS(ParseSplit(w, &c, 100), Status::kWavInvalid);
}

GW_TEST(WavConcatenatedFilesAndTrailingChunks) {
  WavSpec a;
  a.rate = 8000;
  WavSpec b;
  b.rate = 22050;
  b.channels = 2;
  auto wav = MakeWav(a, Frames(1, 100));
  // A trailing chunk after data, then a second file.
  PutTag(&wav, "id3 ");
  Put32(&wav, 3);
  wav.insert(wav.end(), {1, 2, 3, 0});
  const auto second = MakeWav(b, Frames(2, 50));
  wav.insert(wav.end(), second.begin(), second.end());
  Collector c;
  GW_CHECK_STATUS(ParseSplit(wav, &c, 5), Status::kOk);
  GW_CHECK_EQ(c.formats.size(), 2u);
  GW_CHECK_EQ(c.samples.size(), 150u);
  if (c.formats.size() == 2) GW_CHECK_EQ(c.formats[1].sample_rate, 22050);
}
