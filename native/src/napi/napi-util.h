// Helpers shared by the bindings: opaque handles and typed-array access.
//
// A handle is a type-tagged Napi::External owning a Box<T>. close() destroys the object at
// once and leaves an empty box (later calls throw "handle is closed"); if JavaScript drops a
// handle without closing it, the External's finalizer frees it. The TypeScript class that
// owns each handle calls close() itself or from a FinalizationRegistry.
//
// Typed arrays are read in place: a pointer obtained here is valid only during the current
// call (the JavaScript caller owns the memory); nothing keeps it past return, except the
// front end's state array, which the binding holds a reference to (see front-end-binding).
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace gwnapi {

template <typename T>
struct Box {
  std::unique_ptr<T> object;
  int64_t external_bytes = 0;  // reported to V8 so that GC sees the native memory
};

template <typename T>
Napi::Value MakeHandle(Napi::Env env, std::unique_ptr<T> object, const napi_type_tag& tag,
                       int64_t external_bytes) {
  auto* box = new Box<T>{std::move(object), external_bytes};
  auto handle = Napi::External<Box<T>>::New(env, box, [](Napi::Env e, Box<T>* b) {
    if (b->object && b->external_bytes != 0) {
      Napi::MemoryManagement::AdjustExternalMemory(e, -b->external_bytes);
    }
    delete b;
  });
  handle.TypeTag(&tag);
  if (external_bytes != 0) Napi::MemoryManagement::AdjustExternalMemory(env, external_bytes);
  return handle;
}

// The box behind argument `index`, or nullptr with a TypeError pending.
template <typename T>
Box<T>* GetBox(const Napi::CallbackInfo& info, size_t index, const napi_type_tag& tag) {
  const Napi::Value v = info[index];
  if (!v.IsExternal() || !v.As<Napi::External<Box<T>>>().CheckTypeTag(&tag)) {
    Napi::TypeError::New(info.Env(), "invalid handle").ThrowAsJavaScriptException();
    return nullptr;
  }
  return v.As<Napi::External<Box<T>>>().Data();
}

// The live object behind argument `index`, or nullptr with an exception pending.
template <typename T>
T* GetObject(const Napi::CallbackInfo& info, size_t index, const napi_type_tag& tag) {
  Box<T>* box = GetBox<T>(info, index, tag);
  if (box == nullptr) return nullptr;
  if (!box->object) {
    Napi::Error::New(info.Env(), "handle is closed").ThrowAsJavaScriptException();
    return nullptr;
  }
  return box->object.get();
}

template <typename T>
Napi::Value CloseHandle(const Napi::CallbackInfo& info, const napi_type_tag& tag) {
  Box<T>* box = GetBox<T>(info, 0, tag);
  if (box != nullptr && box->object) {
    box->object.reset();
    if (box->external_bytes != 0) {
      Napi::MemoryManagement::AdjustExternalMemory(info.Env(), -box->external_bytes);
    }
  }
  return info.Env().Undefined();
}

struct Bytes {
  const uint8_t* data;
  size_t size;
};

// Accepts an ArrayBuffer or any ArrayBufferView (Uint8Array, Buffer, DataView...).
bool GetBytes(const Napi::CallbackInfo& info, size_t index, Bytes* out);
bool GetFloat32(const Napi::CallbackInfo& info, size_t index, float** data, size_t* len);
bool GetFloat64(const Napi::CallbackInfo& info, size_t index, double** data, size_t* len);
bool GetInt32(const Napi::CallbackInfo& info, size_t index, int32_t** data, size_t* len);
bool GetUint8(const Napi::CallbackInfo& info, size_t index, uint8_t** data, size_t* len);

// A Float32Array or Int16Array argument.
struct Samples {
  float* f32 = nullptr;
  int16_t* i16 = nullptr;
  size_t len = 0;
};
bool GetSamples(const Napi::CallbackInfo& info, size_t index, Samples* out);

// A finite number argument, or a TypeError.
bool GetNumber(const Napi::CallbackInfo& info, size_t index, double* out);
// A non-negative integer (positions, counts) up to 2^53.
bool GetPosition(const Napi::CallbackInfo& info, size_t index, uint64_t* out);

// Reads options.name when present (a number), else keeps *value.
bool OptionalNumber(const Napi::Object& options, const char* name, double* value);
bool OptionalInt(const Napi::Object& options, const char* name, int* value);
bool OptionalBool(const Napi::Object& options, const char* name, bool* value);

void ThrowRange(Napi::Env env, const char* message);

// A count returned to JavaScript (samples, frames, events).
inline Napi::Value Count(Napi::Env env, size_t n) {
  return Napi::Number::New(env, static_cast<double>(n));
}

// The Float64Array at `index` with room for `needed` numbers, or nullptr with an exception
// pending ("stats array needs N elements").
double* GetStatsArray(const Napi::CallbackInfo& info, size_t index, size_t needed);

}  // namespace gwnapi
