// ringBuffer*: the per-stream ring buffer on its own (the front end embeds one).
#include "dsp/ring-buffer.h"
#include "napi/bindings.h"
#include "napi/handle-class.h"
#include "napi/napi-util.h"
#include "napi/ring-samples.h"

namespace gwnapi {

namespace {

using gw::RingBuffer;
using Ring = HandleClass<RingBuffer, 1>;

Napi::Value Create(const Napi::CallbackInfo& info) {
  uint64_t initial = 0, max = 0;
  if (!GetPosition(info, 0, &initial) || !GetPosition(info, 1, &max)) return {};
  if (initial < 1 || max < 1 || max > (uint64_t{1} << 31)) {
    ThrowRange(info.Env(), "capacities must be between 1 and 2^31 samples");
    return {};
  }
  auto ring = std::make_unique<RingBuffer>(static_cast<size_t>(initial), static_cast<size_t>(max));
  const int64_t bytes = static_cast<int64_t>(ring->capacity() * sizeof(int16_t));
  return Ring::Make(info.Env(), std::move(ring), bytes);
}

// (handle, Int16Array | Float32Array) -> samples stored
Napi::Value Write(const Napi::CallbackInfo& info, RingBuffer* ring) {
  Samples s;
  if (!GetSamples(info, 1, &s)) return {};
  return Count(info.Env(),
               s.f32 != nullptr ? ring->WriteFloat(s.f32, s.len) : ring->Write(s.i16, s.len));
}

// (handle, Int16Array | Float32Array) -> samples read (consumed)
Napi::Value Read(const Napi::CallbackInfo& info, RingBuffer* ring) {
  Samples s;
  if (!GetSamples(info, 1, &s)) return {};
  return Count(info.Env(), ReadSamples(ring, s));
}

// (handle, position, Int16Array | Float32Array) -> samples copied from max(position, readPos)
Napi::Value Peek(const Napi::CallbackInfo& info, RingBuffer* ring) {
  uint64_t pos = 0;
  Samples s;
  if (!GetPosition(info, 1, &pos) || !GetSamples(info, 2, &s)) return {};
  return Count(info.Env(), PeekSamples(*ring, pos, s));
}

Napi::Value DiscardUntil(const Napi::CallbackInfo& info, RingBuffer* ring) {
  uint64_t pos = 0;
  if (!GetPosition(info, 1, &pos)) return {};
  return Count(info.Env(), ring->DiscardUntil(pos));
}

Napi::Value Clear(const Napi::CallbackInfo& info, RingBuffer* ring) {
  ring->Clear();
  return info.Env().Undefined();
}

// (handle, Float64Array(6)): size, readPos, writePos, capacity, maxCapacity, growCount
Napi::Value Stats(const Napi::CallbackInfo& info, RingBuffer* ring) {
  double* out = GetStatsArray(info, 1, 6);
  if (out == nullptr) return {};
  out[0] = static_cast<double>(ring->size());
  out[1] = static_cast<double>(ring->read_pos());
  out[2] = static_cast<double>(ring->write_pos());
  out[3] = static_cast<double>(ring->capacity());
  out[4] = static_cast<double>(ring->max_capacity());
  out[5] = static_cast<double>(ring->grow_count());
  return info.Env().Undefined();
}

}  // namespace

void RegisterRingBuffer(Napi::Env env, Napi::Object exports) {
  Ring::Register<Write, Read, Peek, DiscardUntil, Clear, Stats>(
      env, exports, "ringBuffer", Create,
      {"Write", "Read", "Peek", "DiscardUntil", "Clear", "Stats"});
}

}  // namespace gwnapi
