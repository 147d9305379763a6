// G.711 (ITU-T Recommendation G.711) expansion: one 8-bit A-law or mu-law code to a 16-bit
// linear sample, for 8 kHz telephone audio (WebSocket formats alaw_8k and mulaw_8k).
//
// Rules (G.711 section 3, the decoder's output values scaled to 16 bits):
// - A-law: the even bits of the code are inverted on the line (XOR 0x55); bit 7 set is
//   positive. Segment s = bits 6-4, step q = bits 3-0: segment 0 decodes to 8 * (2q + 1),
//   segment s >= 1 to 8 * (2q + 33) << (s - 1). Range +-8 to +-32256; no code is zero.
// - mu-law: every bit is inverted on the line; bit 7 clear is negative. Segment s = bits
//   6-4, step q = bits 3-0: ((2q + 33) << (s + 2)) - 132. Range 0 to +-32124; 0xFF and 0x7F
//   are both zero.
// The values equal the reference decoders (Sun's g711.c, ffmpeg's pcm_alaw/pcm_mulaw, sox)
// code for code. Tables are built once at first use; expansion is a table lookup.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gw {

enum class G711Law : int32_t { kMulaw = 0, kAlaw = 1 };

// One code by the formula above (no table).
int16_t AlawToLinear(uint8_t code);
int16_t MulawToLinear(uint8_t code);

// The 256-entry table of a law (index: the code as it arrives).
const int16_t* G711Table(G711Law law);

// n codes to floats in [-1, 1) (the linear value / 32768), as the front end's resampler reads.
void G711ToFloat(G711Law law, const uint8_t* codes, float* out, size_t n);

}  // namespace gw
