// StreamFrontEnd helpers shared by the front-end tests: make one for a format, push bytes in
// random chunk sizes, and drain what it wrote to its ring (or all three: PushFlushDrain).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "dsp/stream-front-end.h"
#include "test-harness.h"

namespace gwtest {

// A front end for `format` (the other settings at their defaults unless given); fails the test
// when Create does not return kOk.
inline std::unique_ptr<gw::StreamFrontEnd> MakeFrontEnd(gw::AudioFormat format,
                                                        size_t max_samples = 25000000,
                                                        int webm_rate = 16000) {
  gw::FrontEndConfig c;
  c.format = format;
  c.max_buffer_samples = max_samples;
  c.webm_decode_rate = webm_rate;
  gw::Status s;
  auto fe = gw::StreamFrontEnd::Create(c, &s);
  GW_CHECK_STATUS(s, gw::Status::kOk);
  return fe;
}

// Every sample in the front end's ring, read out.
inline std::vector<float> DrainFrontEnd(gw::StreamFrontEnd* fe) {
  std::vector<float> out(fe->ring().size());
  fe->ring().ReadFloat(out.data(), out.size());
  return out;
}

// Pushes in random chunk sizes of 1..max_chunk bytes (odd splits included); returns the first
// non-OK status.
inline gw::Status PushSplit(gw::StreamFrontEnd* fe, const std::vector<uint8_t>& bytes,
                            unsigned seed, size_t max_chunk = 1500) {
  std::mt19937 rng(seed);
  gw::Status first = gw::Status::kOk;
  for (size_t at = 0; at < bytes.size();) {
    const size_t n = std::min<size_t>(bytes.size() - at, 1 + rng() % max_chunk);
    const gw::Status s = fe->Push(bytes.data() + at, n);
    if (s != gw::Status::kOk && first == gw::Status::kOk) first = s;
    at += n;
  }
  return first;
}

// Pushes `bytes` (PushSplit), flushes and returns every sample the front end wrote; fails the
// test when a push or the flush is not kOk.
inline std::vector<float> PushFlushDrain(gw::StreamFrontEnd* fe, const std::vector<uint8_t>& bytes,
                                         unsigned seed, size_t max_chunk = 1500) {
  GW_CHECK_STATUS(PushSplit(fe, bytes, seed, max_chunk), gw::Status::kOk);
  GW_CHECK_STATUS(fe->Flush(), gw::Status::kOk);
  return DrainFrontEnd(fe);
}

}  // namespace gwtest
