// Chunking helper for the fuzz targets: the first input byte seeds the chunk sizes, so the
// fuzzer explores messages split at every kind of boundary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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

}  // namespace gwfuzz
