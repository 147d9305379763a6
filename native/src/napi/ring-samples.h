// Ring-buffer reads into a caller's Float32Array or Int16Array (see Samples), shared by the
// ringBuffer* and frontEnd* bindings.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dsp/ring-buffer.h"
#include "napi/napi-util.h"

namespace gwnapi {

// Consumes up to s.len samples; returns how many were read.
inline size_t ReadSamples(gw::RingBuffer* ring, const Samples& s) {
  return s.f32 != nullptr ? ring->ReadFloat(s.f32, s.len) : ring->Read(s.i16, s.len);
}

// Copies up to s.len samples from max(pos, readPos) without consuming them.
inline size_t PeekSamples(const gw::RingBuffer& ring, uint64_t pos, const Samples& s) {
  return s.f32 != nullptr ? ring.PeekFloat(pos, s.f32, s.len, nullptr)
                          : ring.Peek(pos, s.i16, s.len, nullptr);
}

}  // namespace gwnapi
