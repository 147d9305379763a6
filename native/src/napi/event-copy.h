// Copies queued endpoint events into a caller's Float64Array, 4 numbers per event:
// type (1 start, 2 end), flags (1 forced split, 2 end of stream), position, turnStart.
#pragma once

#include <cstddef>

#include "dsp/endpoint-event.h"

namespace gwnapi {

constexpr size_t kEventStride = 4;

inline size_t CopyEvents(gw::EventQueue* queue, double* out, size_t len) {
  size_t n = 0;
  gw::EndpointEvent e;
  while (n < len / kEventStride && queue->Pop(&e, 1) == 1) {
    double* slot = out + n * kEventStride;
    slot[0] = static_cast<double>(static_cast<int>(e.type));
    slot[1] = static_cast<double>(e.flags);
    slot[2] = static_cast<double>(e.position);
    slot[3] = static_cast<double>(e.turn_start);
    ++n;
  }
  return n;
}

}  // namespace gwnapi
