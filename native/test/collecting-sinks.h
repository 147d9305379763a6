// Sinks that keep everything the WAV parser and the WebM demuxer hand them, for the unit tests
// and the fuzz targets (which compare what a whole and a split input produce).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dsp/wav-parser.h"
#include "dsp/webm-demuxer.h"

namespace gwtest {

struct WavCollector : gw::WavSampleSink {
  std::vector<gw::WavFormat> formats;
  std::vector<float> samples;
  gw::Status OnFormat(const gw::WavFormat& f) override {
    formats.push_back(f);
    return gw::Status::kOk;
  }
  gw::Status OnSamples(const float* x, size_t n) override {
    samples.insert(samples.end(), x, x + n);
    return gw::Status::kOk;
  }
};

struct WebmRecorder : gw::WebmFrameSink {
  std::vector<std::vector<uint8_t>> frames;
  std::vector<gw::WebmAudioTrack> tracks;
  gw::Status OnAudioTrack(const gw::WebmAudioTrack& t) override {
    tracks.push_back(t);
    return gw::Status::kOk;
  }
  std::vector<uint64_t> discards;  // discard_ns of each frame
  gw::Status OnFrame(const uint8_t* d, size_t n, uint64_t discard_ns) override {
    frames.emplace_back(d, d + n);
    discards.push_back(discard_ns);
    return gw::Status::kOk;
  }
};

}  // namespace gwtest
