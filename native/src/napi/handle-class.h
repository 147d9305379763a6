// The shape every handle-owning binding shares: one type tag per class, methods that unwrap
// the live object from argument 0, and registration of `<prefix><Name>` plus `<prefix>Close`
// on the addon's exports. Lifetimes are those of napi-util.h (Box, MakeHandle, CloseHandle).
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "napi/napi-util.h"

namespace gwnapi {

// T is the boxed native object; kId tells the classes' type tags apart (never reuse one).
template <typename T, uint64_t kId>
struct HandleClass {
  static constexpr napi_type_tag kTag = {0x6777a1b2c3d4e5f6ULL, kId};
  using Method = Napi::Value (*)(const Napi::CallbackInfo&, T*);

  static Napi::Value Make(Napi::Env env, std::unique_ptr<T> object, int64_t external_bytes = 0) {
    return MakeHandle(env, std::move(object), kTag, external_bytes);
  }

  // (handle, ...) -> M(info, object); a wrong or closed handle throws before M runs.
  template <Method M>
  static Napi::Value Bind(const Napi::CallbackInfo& info) {
    T* object = GetObject<T>(info, 0, kTag);
    if (object == nullptr) return {};
    return M(info, object);
  }

  static Napi::Value Close(const Napi::CallbackInfo& info) { return CloseHandle<T>(info, kTag); }

  // exports[prefix + "Create"], then exports[prefix + names[i]] = Bind<Ms[i]> in order, then
  // exports[prefix + "Close"]. The names array must have one entry per method.
  template <Method... Ms>
  static void Register(Napi::Env env, Napi::Object exports, const char* prefix,
                       Napi::Function::Callback create, const char* const (&names)[sizeof...(Ms)]) {
    const Napi::Function::Callback methods[] = {Bind<Ms>...};
    exports.Set(std::string(prefix) + "Create", Napi::Function::New(env, create));
    for (size_t i = 0; i < sizeof...(Ms); ++i) {
      exports.Set(std::string(prefix) + names[i], Napi::Function::New(env, methods[i]));
    }
    exports.Set(std::string(prefix) + "Close", Napi::Function::New(env, Close));
  }
};

// (handle) -> undefined: the Reset() method that most classes share.
template <typename T>
Napi::Value CallReset(const Napi::CallbackInfo& info, T* object) {
  object->Reset();
  return info.Env().Undefined();
}

}  // namespace gwnapi
