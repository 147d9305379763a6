#include <cstring>
#include <fstream>
#include <iterator>

#include "dsp/simd-dot.h"
#include "test-harness.h"

namespace gwtest {

namespace {
int g_failures = 0;
}

std::vector<TestCase>& Registry() {
  static std::vector<TestCase> tests;
  return tests;
}

void Fail(const char* file, int line, const std::string& message) {
  ++g_failures;
  std::fprintf(stderr, "  FAIL %s:%d: %s\n", file, line, message.c_str());
}

std::string FixturePath(const std::string& name) {
  const char* dir = std::getenv("GATEWAY_FIXTURES");
  return std::string(dir != nullptr ? dir : "test/fixtures/native") + "/" + name;
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Fail(__FILE__, __LINE__, "cannot open " + path);
    return {};
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace gwtest

int main(int argc, char** argv) {
  const char* filter = argc > 1 ? argv[1] : nullptr;
  std::printf("dot kernel: %s\n", gw::SelectedDotName());
  int run = 0;
  int failed_tests = 0;
  for (const auto& t : gwtest::Registry()) {
    if (filter != nullptr && std::strstr(t.name, filter) == nullptr) continue;
    const int before = gwtest::g_failures;
    std::printf("[ RUN  ] %s\n", t.name);
    std::fflush(stdout);
    t.fn();
    ++run;
    if (gwtest::g_failures != before) {
      ++failed_tests;
      std::printf("[ FAIL ] %s\n", t.name);
    } else {
      std::printf("[  OK  ] %s\n", t.name);
    }
  }
  std::printf("%d tests, %d failed\n", run, failed_tests);
  return failed_tests == 0 && run > 0 ? 0 : 1;
}
