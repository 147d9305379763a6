// Helpers shared by the fuzz targets. Chunking: the first input byte seeds the chunk sizes, so
// the fuzzer explores messages split at every kind of boundary.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "dsp/stream-front-end.h"

namespace gwfuzz {

struct Split {
  const uint8_t* data;
  size_t size;
};

// Cuts data into pieces whose sizes follow a small LCG seeded by `seed` (1..max bytes).
inline std::vector<Split> SplitInput(const uint8_t* data, size_t size, uint8_t seed, size_t max) {
  std::vector<Split> pieces;
  uint32_t state = 0x9E3779B9u ^ seed;
  for (size_t at = 0; at < size;) {
    state = state * 1664525u + 1013904223u;
    const size_t n = std::min(size - at, 1 + static_cast<size_t>(state >> 8) % max);
    pieces.push_back({data + at, n});
    at += n;
  }
  return pieces;
}

// The split seed is the input's first byte: takes it off the input; false when it is empty.
inline bool TakeSeed(const uint8_t** data, size_t* size, uint8_t* seed) {
  if (*size < 1) return false;
  *seed = (*data)[0];
  ++*data;
  --*size;
  return true;
}

// Pushes the pieces of data (split by seed and max) into a fresh parser (WavParser,
// WebmDemuxer...) and returns the last status other than kOk, or kOk.
template <typename Parser, typename Sink>
gw::Status PushSplit(Parser parser, const uint8_t* data, size_t size, uint8_t seed, size_t max,
                     Sink* sink) {
  gw::Status last = gw::Status::kOk;
  for (const auto& piece : SplitInput(data, size, seed, max)) {
    const gw::Status s = parser.Push(piece.data, piece.size, sink);
    if (s != gw::Status::kOk) last = s;
  }
  return last;
}

// What a parser made of the whole input in one push and of the input split by a seed.
template <typename Sink>
struct WholeAndSplit {
  Sink whole, split;
  gw::Status whole_status = gw::Status::kOk, split_status = gw::Status::kOk;
};

// Runs copies of `parser` (fresh) over data in one piece and in pieces of 1..max_piece bytes.
template <typename Sink, typename Parser>
WholeAndSplit<Sink> RunWholeAndSplit(const Parser& parser, const uint8_t* data, size_t size,
                                     uint8_t seed, size_t max_piece) {
  WholeAndSplit<Sink> r;
  r.whole_status = PushSplit(parser, data, size, 0, size == 0 ? 1 : size, &r.whole);
  r.split_status = PushSplit(parser, data, size, seed, max_piece, &r.split);
  return r;
}

// A front end for `format` with a small buffer (max_samples, starting at initial_samples).
inline std::unique_ptr<gw::StreamFrontEnd> MakeFrontEnd(gw::AudioFormat format, size_t max_samples,
                                                        size_t initial_samples,
                                                        int webm_decode_rate = 16000) {
  gw::FrontEndConfig config;
  config.format = format;
  config.max_buffer_samples = max_samples;
  config.initial_buffer_samples = initial_samples;
  config.webm_decode_rate = webm_decode_rate;
  gw::Status status;
  return gw::StreamFrontEnd::Create(config, &status);
}

// Pushes data split by seed (pieces up to max bytes), aborting if the front end ever buffers
// more than `capacity` samples (its configured maximum), then flushes.
inline void PushFrontEndSplit(gw::StreamFrontEnd* fe, size_t capacity, const uint8_t* data,
                              size_t size, uint8_t seed, size_t max) {
  for (const auto& piece : SplitInput(data, size, seed, max)) {
    fe->Push(piece.data, piece.size);
    if (fe->ring().size() > capacity) std::abort();
  }
  fe->Flush();
}

}  // namespace gwfuzz
