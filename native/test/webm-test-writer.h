// Builds WebM byte streams for the demuxer tests and the fuzz seed corpus.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gwtest {

using Bytes = std::vector<uint8_t>;

inline void Append(Bytes* out, const Bytes& b) { out->insert(out->end(), b.begin(), b.end()); }

inline Bytes Id(uint32_t id) {
  Bytes b;
  for (int shift = 24; shift >= 0; shift -= 8) {
    if (!b.empty() || (id >> shift) != 0) b.push_back(static_cast<uint8_t>(id >> shift));
  }
  return b;
}

// Size VINT of `len` bytes (0: shortest).
inline Bytes Size(uint64_t v, int len = 0) {
  if (len == 0) {
    len = 1;
    while (len < 8 && v >= (uint64_t{1} << (7 * len)) - 1) ++len;
  }
  Bytes b(static_cast<size_t>(len));
  for (int i = len - 1; i >= 0; --i, v >>= 8) b[static_cast<size_t>(i)] = static_cast<uint8_t>(v);
  b[0] |= static_cast<uint8_t>(0x80 >> (len - 1));
  return b;
}

inline Bytes UnknownSize() { return {0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}; }

inline Bytes Element(uint32_t id, const Bytes& payload) {
  Bytes b = Id(id);
  Append(&b, Size(payload.size()));
  Append(&b, payload);
  return b;
}

// Appends an element of known size, or (unknown_size, as MediaRecorder writes Segment and
// Cluster) its ID, the unknown-size marker and the payload.
inline void AppendElement(Bytes* out, uint32_t id, const Bytes& payload, bool unknown_size) {
  if (unknown_size) {
    Append(out, Id(id));
    Append(out, UnknownSize());
    Append(out, payload);
  } else {
    Append(out, Element(id, payload));
  }
}

inline Bytes UintElement(uint32_t id, uint64_t v) {
  Bytes p;
  do {
    p.insert(p.begin(), static_cast<uint8_t>(v));
    v >>= 8;
  } while (v != 0);
  return Element(id, p);
}

// A signed integer element in the fewest bytes that keep its sign (two's complement).
inline Bytes SintElement(uint32_t id, int64_t v) {
  Bytes p;
  for (;;) {
    p.insert(p.begin(), static_cast<uint8_t>(v));
    const bool sign = (p.front() & 0x80) != 0;
    v >>= 8;  // arithmetic shift
    if ((v == 0 && !sign) || (v == -1 && sign)) break;
  }
  return Element(id, p);
}

inline Bytes StringElement(uint32_t id, const std::string& s) {
  return Element(id, Bytes(s.begin(), s.end()));
}

inline Bytes FloatElement(uint32_t id, double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  Bytes p(8);
  for (int i = 7; i >= 0; --i, bits >>= 8) p[static_cast<size_t>(i)] = static_cast<uint8_t>(bits);
  return Element(id, p);
}

inline Bytes OpusHead(int channels, int pre_skip, int gain_q8 = 0) {
  Bytes h = {'O',
             'p',
             'u',
             's',
             'H',
             'e',
             'a',
             'd',
             1,
             static_cast<uint8_t>(channels),
             static_cast<uint8_t>(pre_skip),
             static_cast<uint8_t>(pre_skip >> 8),
             0x80,
             0xBB,
             0x00,
             0x00,  // 48000
             static_cast<uint8_t>(gain_q8),
             static_cast<uint8_t>(gain_q8 >> 8),
             0};
  return h;
}

struct WebmOptions {
  bool unknown_sizes = true;  // Segment and Clusters of unknown size (MediaRecorder)
  int frames_per_cluster = 10;
  int lacing = 0;                       // 0 none, 1 Xiph, 2 fixed, 3 EBML: 3 frames per block
  bool video_track = false;             // adds a video track and interleaves (large) video blocks
  size_t video_keyframe_bytes = 40000;  // larger than the demuxer's default block buffer
  bool block_groups = false;            // Block inside BlockGroup instead of SimpleBlock
  int64_t discard_padding_ns = 0;       // block_groups: DiscardPadding after the last Block
  std::string doc_type = "webm";
  std::string codec = "A_OPUS";
  int channels = 1;
  int pre_skip = 312;
};

inline Bytes EbmlHeader(const std::string& doc_type) {
  Bytes h;
  Append(&h, UintElement(0x4286, 1));
  Append(&h, UintElement(0x42F7, 1));
  Append(&h, UintElement(0x42F2, 4));
  Append(&h, UintElement(0x42F3, 8));
  Append(&h, StringElement(0x4282, doc_type));
  Append(&h, UintElement(0x4287, 4));
  Append(&h, UintElement(0x4285, 2));
  return Element(0x1A45DFA3, h);
}

inline Bytes TracksElement(const WebmOptions& o) {
  Bytes audio;
  Append(&audio, UintElement(0xD7, 1));
  Append(&audio, UintElement(0x73C5, 1234));
  Append(&audio, UintElement(0x83, 2));
  Append(&audio, StringElement(0x86, o.codec));
  Append(&audio, Element(0x63A2, OpusHead(o.channels, o.pre_skip)));
  Bytes a;
  Append(&a, FloatElement(0xB5, 48000.0));
  Append(&a, UintElement(0x9F, static_cast<uint64_t>(o.channels)));
  Append(&audio, Element(0xE1, a));
  Bytes tracks;
  if (o.video_track) {
    Bytes video;
    Append(&video, UintElement(0xD7, 2));
    Append(&video, UintElement(0x83, 1));
    Append(&video, StringElement(0x86, "V_VP8"));
    Append(&tracks, Element(0xAE, video));
  }
  Append(&tracks, Element(0xAE, audio));
  return Element(0x1654AE6B, tracks);
}

inline Bytes BlockBody(uint64_t track, int16_t timecode, uint8_t flags, const Bytes& frames) {
  Bytes b = Size(track);
  b[0] = static_cast<uint8_t>(b[0]);  // track numbers are VINTs like sizes
  b.push_back(static_cast<uint8_t>(timecode >> 8));
  b.push_back(static_cast<uint8_t>(timecode));
  b.push_back(flags);
  Append(&b, frames);
  return b;
}

inline Bytes LacedFrames(int lacing, const std::vector<Bytes>& frames) {
  Bytes out;
  out.push_back(static_cast<uint8_t>(frames.size() - 1));
  if (lacing == 1) {
    for (size_t k = 0; k + 1 < frames.size(); ++k) {
      size_t s = frames[k].size();
      while (s >= 255) {
        out.push_back(255);
        s -= 255;
      }
      out.push_back(static_cast<uint8_t>(s));
    }
  } else if (lacing == 3) {
    Append(&out, Size(frames[0].size()));
    for (size_t k = 1; k + 1 < frames.size(); ++k) {
      const int64_t diff =
          static_cast<int64_t>(frames[k].size()) - static_cast<int64_t>(frames[k - 1].size());
      // Signed VINT in 2 bytes: bias 2^13 - 1.
      const uint64_t raw = static_cast<uint64_t>(diff + 8191);
      Append(&out, Size(raw, 2));
    }
  }
  for (const auto& f : frames) Append(&out, f);
  return out;
}

// A WebM stream carrying `packets` as the audio track.
inline Bytes MakeWebm(const std::vector<Bytes>& packets, const WebmOptions& o = {}) {
  Bytes out = EbmlHeader(o.doc_type);
  Bytes segment;
  Bytes info;
  Append(&info, UintElement(0x2AD7B1, 1000000));
  Append(&info, StringElement(0x4D80, "gateway-test"));
  Append(&segment, Element(0x1549A966, info));
  Append(&segment, TracksElement(o));
  size_t at = 0;
  int16_t timecode = 0;
  while (at < packets.size()) {
    Bytes cluster;
    Append(&cluster, UintElement(0xE7, at * 20));
    for (int k = 0; k < o.frames_per_cluster && at < packets.size(); ++k) {
      if (o.video_track && k % 3 == 0) {
        Bytes big(k == 0 ? o.video_keyframe_bytes : 300, 0x5A);
        Append(&cluster, Element(0xA3, BlockBody(2, timecode, 0x80, big)));
      }
      Bytes body;
      if (o.lacing != 0 && at + 3 <= packets.size()) {
        std::vector<Bytes> frames(packets.begin() + static_cast<long>(at),
                                  packets.begin() + static_cast<long>(at + 3));
        if (o.lacing == 2) {
          // Fixed lacing needs equal sizes: pad copies to the longest (test-only frames).
          size_t longest = 0;
          for (auto& f : frames) longest = std::max(longest, f.size());
          for (auto& f : frames) f.resize(longest, 0);
        }
        body = BlockBody(1, timecode, static_cast<uint8_t>(0x80 | (o.lacing << 1)),
                         LacedFrames(o.lacing, frames));
        at += 3;
      } else {
        body = BlockBody(1, timecode, 0x80, packets[at]);
        ++at;
      }
      if (o.block_groups) {
        Bytes group = Element(0xA1, body);
        if (o.discard_padding_ns != 0 && at == packets.size()) {
          Append(&group, SintElement(0x75A2, o.discard_padding_ns));
        }
        Append(&cluster, Element(0xA0, group));
      } else {
        Append(&cluster, Element(0xA3, body));
      }
      timecode = static_cast<int16_t>(timecode + 20);
    }
    AppendElement(&segment, 0x1F43B675, cluster, o.unknown_sizes);
  }
  AppendElement(&out, 0x18538067, segment, o.unknown_sizes);
  return out;
}

}  // namespace gwtest
