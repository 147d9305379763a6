// ringBuffer*: the per-stream ring buffer on its own (the front end embeds one).
#include "dsp/ring-buffer.h"
#include "napi/bindings.h"
#include "napi/napi-util.h"

namespace gwnapi {

namespace {

using gw::RingBuffer;
constexpr napi_type_tag kTag = {0x6777a1b2c3d4e5f6ULL, 0x0000000000000001ULL};

Napi::Value Create(const Napi::CallbackInfo& info) {
  uint64_t initial = 0, max = 0;
  if (!GetPosition(info, 0, &initial) || !GetPosition(info, 1, &max)) return {};
  if (initial < 1 || max < 1 || max > (uint64_t{1} << 31)) {
    ThrowRange(info.Env(), "capacities must be between 1 and 2^31 samples");
    return {};
  }
  auto ring = std::make_unique<RingBuffer>(static_cast<size_t>(initial), static_cast<size_t>(max));
  const int64_t bytes = static_cast<int64_t>(ring->capacity() * sizeof(int16_t));
  return MakeHandle(info.Env(), std::move(ring), kTag, bytes);
}

// (handle, Int16Array | Float32Array) -> samples stored
Napi::Value Write(const Napi::CallbackInfo& info) {
  RingBuffer* ring = GetObject<RingBuffer>(info, 0, kTag);
  Samples s;
  if (ring == nullptr || !GetSamples(info, 1, &s)) return {};
  const size_t n = s.f32 != nullptr ? ring->WriteFloat(s.f32, s.len) : ring->Write(s.i16, s.len);
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

// (handle, Int16Array | Float32Array) -> samples read (consumed)
Napi::Value Read(const Napi::CallbackInfo& info) {
  RingBuffer* ring = GetObject<RingBuffer>(info, 0, kTag);
  Samples s;
  if (ring == nullptr || !GetSamples(info, 1, &s)) return {};
  const size_t n = s.f32 != nullptr ? ring->ReadFloat(s.f32, s.len) : ring->Read(s.i16, s.len);
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

// (handle, position, Int16Array | Float32Array) -> samples copied from max(position, readPos)
Napi::Value Peek(const Napi::CallbackInfo& info) {
  RingBuffer* ring = GetObject<RingBuffer>(info, 0, kTag);
  uint64_t pos = 0;
  Samples s;
  if (ring == nullptr || !GetPosition(info, 1, &pos) || !GetSamples(info, 2, &s)) return {};
  const size_t n = s.f32 != nullptr ? ring->PeekFloat(pos, s.f32, s.len, nullptr)
                                    : ring->Peek(pos, s.i16, s.len, nullptr);
  return Napi::Number::New(info.Env(), static_cast<double>(n));
}

Napi::Value DiscardUntil(const Napi::CallbackInfo& info) {
  RingBuffer* ring = GetObject<RingBuffer>(info, 0, kTag);
  uint64_t pos = 0;
  if (ring == nullptr || !GetPosition(info, 1, &pos)) return {};
  return Napi::Number::New(info.Env(), static_cast<double>(ring->DiscardUntil(pos)));
}

Napi::Value Clear(const Napi::CallbackInfo& info) {
  RingBuffer* ring = GetObject<RingBuffer>(info, 0, kTag);
  if (ring != nullptr) ring->Clear();
  return info.Env().Undefined();
}

// (handle, Float64Array(6)): size, readPos, writePos, capacity, maxCapacity, growCount
Napi::Value Stats(const Napi::CallbackInfo& info) {
  RingBuffer* ring = GetObject<RingBuffer>(info, 0, kTag);
  double* out = nullptr;
  size_t len = 0;
  if (ring == nullptr || !GetFloat64(info, 1, &out, &len)) return {};
  if (len < 6) {
    ThrowRange(info.Env(), "stats array needs 6 elements");
    return {};
  }
  out[0] = static_cast<double>(ring->size());
  out[1] = static_cast<double>(ring->read_pos());
  out[2] = static_cast<double>(ring->write_pos());
  out[3] = static_cast<double>(ring->capacity());
  out[4] = static_cast<double>(ring->max_capacity());
  out[5] = static_cast<double>(ring->grow_count());
  return info.Env().Undefined();
}

Napi::Value Close(const Napi::CallbackInfo& info) { return CloseHandle<RingBuffer>(info, kTag); }

}  // namespace

void RegisterRingBuffer(Napi::Env env, Napi::Object exports) {
  exports.Set("ringBufferCreate", Napi::Function::New(env, Create));
  exports.Set("ringBufferWrite", Napi::Function::New(env, Write));
  exports.Set("ringBufferRead", Napi::Function::New(env, Read));
  exports.Set("ringBufferPeek", Napi::Function::New(env, Peek));
  exports.Set("ringBufferDiscardUntil", Napi::Function::New(env, DiscardUntil));
  exports.Set("ringBufferClear", Napi::Function::New(env, Clear));
  exports.Set("ringBufferStats", Napi::Function::New(env, Stats));
  exports.Set("ringBufferClose", Napi::Function::New(env, Close));
}

}  // namespace gwnapi
