#include "napi/napi-util.h"

#include <cmath>
#include <string>

namespace gwnapi {

namespace {

// One N-API call: type, element count and the data pointer (already offset).
bool TypedInfo(const Napi::Value& v, napi_typedarray_type* type, size_t* len, void** data) {
  return napi_get_typedarray_info(v.Env(), v, type, len, data, nullptr, nullptr) == napi_ok;
}

template <typename T>
bool GetTyped(const Napi::CallbackInfo& info, size_t index, napi_typedarray_type type,
              const char* name, T** data, size_t* len) {
  const Napi::Value v = info[index];
  napi_typedarray_type actual;
  void* raw = nullptr;
  if (TypedInfo(v, &actual, len, &raw) && actual == type) {
    *data = static_cast<T*>(raw);
    return true;
  }
  Napi::TypeError::New(info.Env(), std::string("expected a ") + name + " argument")
      .ThrowAsJavaScriptException();
  return false;
}

size_t ElementSize(napi_typedarray_type type) {
  switch (type) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array:
      return 1;
    case napi_int16_array:
    case napi_uint16_array:
      return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array:
      return 4;
    default:
      return 8;
  }
}

}  // namespace

bool GetBytes(const Napi::CallbackInfo& info, size_t index, Bytes* out) {
  const Napi::Value v = info[index];
  if (v.IsArrayBuffer()) {
    Napi::ArrayBuffer ab = v.As<Napi::ArrayBuffer>();
    out->data = static_cast<const uint8_t*>(ab.Data());
    out->size = ab.ByteLength();
    return true;
  }
  napi_typedarray_type type;
  size_t len = 0;
  void* raw = nullptr;
  if (TypedInfo(v, &type, &len, &raw)) {  // Buffer and Uint8Array included
    out->data = static_cast<const uint8_t*>(raw);
    out->size = len * ElementSize(type);
    return true;
  }
  if (v.IsDataView()) {
    const Napi::DataView dv = v.As<Napi::DataView>();
    out->data = static_cast<const uint8_t*>(dv.ArrayBuffer().Data()) + dv.ByteOffset();
    out->size = dv.ByteLength();
    return true;
  }
  Napi::TypeError::New(info.Env(), "expected an ArrayBuffer or a typed array")
      .ThrowAsJavaScriptException();
  return false;
}

bool GetFloat32(const Napi::CallbackInfo& info, size_t index, float** data, size_t* len) {
  return GetTyped(info, index, napi_float32_array, "Float32Array", data, len);
}
bool GetFloat64(const Napi::CallbackInfo& info, size_t index, double** data, size_t* len) {
  return GetTyped(info, index, napi_float64_array, "Float64Array", data, len);
}
bool GetInt32(const Napi::CallbackInfo& info, size_t index, int32_t** data, size_t* len) {
  return GetTyped(info, index, napi_int32_array, "Int32Array", data, len);
}
bool GetUint8(const Napi::CallbackInfo& info, size_t index, uint8_t** data, size_t* len) {
  return GetTyped(info, index, napi_uint8_array, "Uint8Array", data, len);
}

bool GetSamples(const Napi::CallbackInfo& info, size_t index, Samples* out) {
  const Napi::Value v = info[index];
  napi_typedarray_type type;
  void* raw = nullptr;
  if (TypedInfo(v, &type, &out->len, &raw)) {
    if (type == napi_float32_array) {
      out->f32 = static_cast<float*>(raw);
      return true;
    }
    if (type == napi_int16_array) {
      out->i16 = static_cast<int16_t*>(raw);
      return true;
    }
  }
  Napi::TypeError::New(info.Env(), "expected a Float32Array or an Int16Array")
      .ThrowAsJavaScriptException();
  return false;
}

bool GetNumber(const Napi::CallbackInfo& info, size_t index, double* out) {
  const Napi::Value v = info[index];
  if (v.IsNumber()) {
    const double d = v.As<Napi::Number>().DoubleValue();
    if (std::isfinite(d)) {
      *out = d;
      return true;
    }
  }
  Napi::TypeError::New(info.Env(), "expected a finite number").ThrowAsJavaScriptException();
  return false;
}

bool GetPosition(const Napi::CallbackInfo& info, size_t index, uint64_t* out) {
  double d = 0;
  if (!GetNumber(info, index, &d)) return false;
  if (d < 0 || d > 9007199254740992.0 || d != std::floor(d)) {
    ThrowRange(info.Env(), "expected a non-negative integer");
    return false;
  }
  *out = static_cast<uint64_t>(d);
  return true;
}

bool OptionalNumber(const Napi::Object& options, const char* name, double* value) {
  const Napi::Value v = options.Get(name);
  if (v.IsUndefined()) return true;
  if (!v.IsNumber() || !std::isfinite(v.As<Napi::Number>().DoubleValue())) {
    Napi::TypeError::New(options.Env(), std::string("option ") + name + " must be a finite number")
        .ThrowAsJavaScriptException();
    return false;
  }
  *value = v.As<Napi::Number>().DoubleValue();
  return true;
}

bool OptionalInt(const Napi::Object& options, const char* name, int* value) {
  double d = *value;
  if (!OptionalNumber(options, name, &d)) return false;
  if (d != std::floor(d) || d < -2147483648.0 || d > 2147483647.0) {
    Napi::RangeError::New(options.Env(), std::string("option ") + name + " must be an integer")
        .ThrowAsJavaScriptException();
    return false;
  }
  *value = static_cast<int>(d);
  return true;
}

bool OptionalBool(const Napi::Object& options, const char* name, bool* value) {
  const Napi::Value v = options.Get(name);
  if (v.IsUndefined()) return true;
  if (!v.IsBoolean()) {
    Napi::TypeError::New(options.Env(), std::string("option ") + name + " must be a boolean")
        .ThrowAsJavaScriptException();
    return false;
  }
  *value = v.As<Napi::Boolean>().Value();
  return true;
}

double* GetStatsArray(const Napi::CallbackInfo& info, size_t index, size_t needed) {
  double* out = nullptr;
  size_t len = 0;
  if (!GetFloat64(info, index, &out, &len)) return nullptr;
  if (len < needed) {
    const std::string message = "stats array needs " + std::to_string(needed) + " elements";
    ThrowRange(info.Env(), message.c_str());
    return nullptr;
  }
  return out;
}

void ThrowRange(Napi::Env env, const char* message) {
  Napi::RangeError::New(env, message).ThrowAsJavaScriptException();
}

}  // namespace gwnapi
