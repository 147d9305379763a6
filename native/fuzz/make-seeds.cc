// Writes the fuzzers' seed corpora (committed under native/fuzz/corpus): WebM streams in the
// shapes browsers and ffmpeg produce, raw Opus packets, and WAV files of every accepted kind
// plus a few rejected ones. Usage: gateway_fuzz_seeds <corpus dir>
#include <cstdio>
#include <string>
#include <vector>

#include "opus-test-util.h"
#include "test-signals.h"
#include "wav-test-writer.h"
#include "webm-test-writer.h"

namespace {

void Write(const std::string& path, const std::vector<uint8_t>& bytes, uint8_t split_seed) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::fputc(split_seed, f);  // the targets read their split seed from the first byte
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  using namespace gwtest;

  // WebM: real Opus packets (200 ms of a tone) in several container shapes.
  const auto pcm = Tone(440.0, 48000, 9600, 0.3);
  const auto packets = EncodeOpus(pcm, 48000, 20, 32000);
  std::vector<Bytes> p(packets.begin(), packets.end());
  WebmOptions o;
  Write(dir + "/webm-demuxer/mediarecorder-unknown-sizes", MakeWebm(p, o), 7);
  o.unknown_sizes = false;
  Write(dir + "/webm-demuxer/known-sizes", MakeWebm(p, o), 19);
  o = WebmOptions{};
  o.lacing = 1;
  Write(dir + "/webm-demuxer/xiph-lacing", MakeWebm(p, o), 3);
  o.lacing = 3;
  Write(dir + "/webm-demuxer/ebml-lacing", MakeWebm(p, o), 40);
  o.lacing = 2;
  Write(dir + "/webm-demuxer/fixed-lacing", MakeWebm(p, o), 1);
  o = WebmOptions{};
  o.video_track = true;
  o.block_groups = true;
  o.frames_per_cluster = 4;
  o.video_keyframe_bytes = 5000;
  std::vector<Bytes> few(p.begin(), p.begin() + 4);
  Write(dir + "/webm-demuxer/video-and-blockgroups", MakeWebm(few, o), 11);

  // Raw Opus: [length][packet] messages at 16 kHz, including a 40 ms one.
  const auto pcm16 = Tone(300.0, 16000, 3200, 0.3);
  std::vector<uint8_t> raw;
  for (int frame_ms : {20, 40, 10}) {
    for (const auto& packet : EncodeOpus(pcm16, 16000, frame_ms, 24000)) {
      if (packet.size() > 255) continue;
      raw.push_back(static_cast<uint8_t>(packet.size()));
      raw.insert(raw.end(), packet.begin(), packet.end());
    }
  }
  FILE* f = std::fopen((dir + "/opus-frame/packets-16k").c_str(), "wb");
  if (f == nullptr) return 1;
  std::fwrite(raw.data(), 1, raw.size(), f);
  std::fclose(f);

  // WAV: every accepted sample format, a few rates, and some rejected codecs.
  std::vector<std::vector<double>> mono(200, std::vector<double>(1));
  std::vector<std::vector<double>> stereo(200, std::vector<double>(2));
  for (size_t i = 0; i < 200; ++i) {
    mono[i][0] = 0.5 * std::sin(0.1 * static_cast<double>(i));
    stereo[i] = {mono[i][0], -mono[i][0]};
  }
  struct Case {
    const char* name;
    WavSpec spec;
  };
  // WavSpec fields in order: tag, sub_tag, channels, rate, bits, streaming_size.
  const std::vector<Case> cases = {
      {"pcm16-16k", WavSpec{}},
      {"pcm8-8k", WavSpec{1, 1, 1, 8000, 8}},
      {"pcm24-44k-stereo", WavSpec{1, 1, 2, 44100, 24}},
      {"float32-48k-streaming", WavSpec{3, 1, 1, 48000, 32, true}},
      {"extensible-pcm32-22k", WavSpec{0xFFFE, 1, 2, 22050, 32}},
      {"mulaw-rejected", WavSpec{7, 1, 1, 16000, 8}},
  };
  for (const auto& c : cases) {
    Write(dir + "/wav-parser/" + c.name, MakeWav(c.spec, c.spec.channels == 2 ? stereo : mono),
          static_cast<uint8_t>(c.name[0] + c.name[1]));
  }
  std::puts("seeds written");
  return 0;
}
