// Builds WAV files for the parser tests and the fuzz seed corpus.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gwtest {

inline void Put16(std::vector<uint8_t>* b, uint32_t v) {
  b->push_back(static_cast<uint8_t>(v));
  b->push_back(static_cast<uint8_t>(v >> 8));
}
inline void Put32(std::vector<uint8_t>* b, uint32_t v) {
  Put16(b, v & 0xFFFF);
  Put16(b, v >> 16);
}
inline void PutTag(std::vector<uint8_t>* b, const char* tag) { b->insert(b->end(), tag, tag + 4); }

struct WavSpec {
  int tag = 1;  // 1 PCM, 3 float, 0xFFFE extensible (sub-format `sub_tag`), others: non-PCM
  int sub_tag = 1;
  int channels = 1;
  int rate = 16000;
  int bits = 16;
  bool streaming_size = false;  // data size 0xFFFFFFFF
  bool list_chunk = true;       // a LIST chunk (odd size, padded) before data
};

// Encodes `frames` (each frame holds `channels` values in [-1, 1]) as a WAV file.
inline std::vector<uint8_t> MakeWav(const WavSpec& s,
                                    const std::vector<std::vector<double>>& frames) {
  std::vector<uint8_t> data;
  const int bytes = s.bits / 8;
  const bool is_float = s.tag == 3 || (s.tag == 0xFFFE && s.sub_tag == 3);
  for (const auto& f : frames) {
    for (int c = 0; c < s.channels; ++c) {
      const double v = f[static_cast<size_t>(c)];
      if (is_float && bytes == 4) {
        const float x = static_cast<float>(v);
        uint32_t u;
        std::memcpy(&u, &x, 4);
        Put32(&data, u);
      } else if (is_float) {
        uint64_t u;
        std::memcpy(&u, &v, 8);
        Put32(&data, static_cast<uint32_t>(u));
        Put32(&data, static_cast<uint32_t>(u >> 32));
      } else if (bytes == 1) {
        data.push_back(static_cast<uint8_t>(std::lround(v * 127.0) + 128));
      } else {
        const double scale = std::ldexp(1.0, s.bits - 1) - 1.0;
        const int64_t q = std::llround(v * scale);
        for (int k = 0; k < bytes; ++k) data.push_back(static_cast<uint8_t>(q >> (8 * k)));
      }
    }
  }
  std::vector<uint8_t> fmt;
  Put16(&fmt, static_cast<uint32_t>(s.tag));
  Put16(&fmt, static_cast<uint32_t>(s.channels));
  Put32(&fmt, static_cast<uint32_t>(s.rate));
  Put32(&fmt, static_cast<uint32_t>(s.rate * s.channels * bytes));
  Put16(&fmt, static_cast<uint32_t>(s.channels * bytes));
  Put16(&fmt, static_cast<uint32_t>(s.bits));
  if (s.tag == 0xFFFE) {
    Put16(&fmt, 22);
    Put16(&fmt, static_cast<uint32_t>(s.bits));
    Put32(&fmt, 0);
    const uint8_t guid_tail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80,
                                   0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};
    Put16(&fmt, static_cast<uint32_t>(s.sub_tag));
    fmt.insert(fmt.end(), guid_tail, guid_tail + 14);
  }
  std::vector<uint8_t> out;
  PutTag(&out, "RIFF");
  Put32(&out, s.streaming_size ? 0xFFFFFFFFu : 0);  // patched below
  PutTag(&out, "WAVE");
  PutTag(&out, "fmt ");
  Put32(&out, static_cast<uint32_t>(fmt.size()));
  out.insert(out.end(), fmt.begin(), fmt.end());
  if (s.list_chunk) {
    PutTag(&out, "LIST");
    Put32(&out, 5);
    const char info[6] = "INFOx";
    out.insert(out.end(), info, info + 5);
    out.push_back(0);  // pad byte
  }
  PutTag(&out, "data");
  Put32(&out, s.streaming_size ? 0xFFFFFFFFu : static_cast<uint32_t>(data.size()));
  out.insert(out.end(), data.begin(), data.end());
  if (!s.streaming_size) {
    if (data.size() % 2 != 0) out.push_back(0);
    const uint32_t riff = static_cast<uint32_t>(out.size() - 8);
    std::memcpy(out.data() + 4, &riff, 4);
  }
  return out;
}

}  // namespace gwtest
