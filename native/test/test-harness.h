// Minimal self-contained test harness (no third-party test framework to install).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace gwtest {

struct TestCase {
  const char* name;
  void (*fn)();
};

std::vector<TestCase>& Registry();
void Fail(const char* file, int line, const std::string& message);
// Path of a committed fixture under test/fixtures/native ($GATEWAY_FIXTURES).
std::string FixturePath(const std::string& name);
std::vector<uint8_t> ReadFile(const std::string& path);

struct Registrar {
  Registrar(const char* name, void (*fn)()) { Registry().push_back({name, fn}); }
};

}  // namespace gwtest

#define GW_TEST(name)                                        \
  static void name();                                        \
  static ::gwtest::Registrar name##_registrar(#name, &name); \
  static void name()

#define GW_CHECK(cond)                                                   \
  do {                                                                   \
    if (!(cond)) ::gwtest::Fail(__FILE__, __LINE__, "CHECK(" #cond ")"); \
  } while (0)

#define GW_CHECK_EQ(a, b)                                                              \
  do {                                                                                 \
    const auto va_ = (a);                                                              \
    const auto vb_ = (b);                                                              \
    if (!(va_ == vb_)) {                                                               \
      ::gwtest::Fail(__FILE__, __LINE__,                                               \
                     std::string("CHECK_EQ(" #a ", " #b "): ") + std::to_string(va_) + \
                         " != " + std::to_string(vb_));                                \
    }                                                                                  \
  } while (0)

#define GW_CHECK_NEAR(a, b, tol)                                                                  \
  do {                                                                                            \
    const double va_ = (a);                                                                       \
    const double vb_ = (b);                                                                       \
    if (!(std::fabs(va_ - vb_) <= (tol))) {                                                       \
      ::gwtest::Fail(__FILE__, __LINE__,                                                          \
                     std::string("CHECK_NEAR(" #a ", " #b "): ") + std::to_string(va_) + " vs " + \
                         std::to_string(vb_) + " tol " + std::to_string(tol));                    \
    }                                                                                             \
  } while (0)

#define GW_CHECK_STATUS(expr, expected) \
  GW_CHECK_EQ(static_cast<int>(expr), static_cast<int>(expected))
