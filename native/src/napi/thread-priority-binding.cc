// Scheduling class and nice value of the calling thread, so that compute threads (inference
// workers, and the onnxruntime threads they start, which inherit both) yield the CPU to the
// event loop. Linux applies setpriority(PRIO_PROCESS, tid) and sched_setscheduler(tid) to the
// one thread; elsewhere nothing changes and `applied` is false.
#include <napi.h>

#include "napi/bindings.h"

#if defined(__linux__)
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace gwnapi {
namespace {

// threadSetBackground(nice) -> { applied, batch, nice }
//   batch: SCHED_BATCH took effect (the thread no longer preempts others on wake-up)
//   nice:  the thread's nice value afterwards (raising it never needs privileges)
Napi::Value ThreadSetBackground(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "threadSetBackground(nice): nice must be a number")
        .ThrowAsJavaScriptException();
    return env.Undefined();
  }
  int nice = info[0].As<Napi::Number>().Int32Value();
  if (nice < 0) nice = 0;
  if (nice > 19) nice = 19;
  Napi::Object result = Napi::Object::New(env);
#if defined(__linux__)
  const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  sched_param param{};
  param.sched_priority = 0;
  const bool batch = sched_setscheduler(tid, SCHED_BATCH, &param) == 0;
  const bool niced = setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice) == 0;
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
  result.Set("applied", Napi::Boolean::New(env, batch || niced));
  result.Set("batch", Napi::Boolean::New(env, batch));
  result.Set("nice", Napi::Number::New(env, errno == 0 ? now : 0));
#else
  result.Set("applied", Napi::Boolean::New(env, false));
  result.Set("batch", Napi::Boolean::New(env, false));
  result.Set("nice", Napi::Number::New(env, 0));
#endif
  return result;
}

}  // namespace

void RegisterThreadPriority(Napi::Env env, Napi::Object exports) {
  exports.Set("threadSetBackground",
              Napi::Function::New(env, ThreadSetBackground, "threadSetBackground"));
}

}  // namespace gwnapi
