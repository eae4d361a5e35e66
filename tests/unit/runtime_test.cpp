// The runtime on a machine without a GPU: it loads, and says why it cannot launch.
#include <catch2/catch.hpp>

#include "wave/error.hpp"
#include "wave/runtime.hpp"

using namespace wave;
using Catch::Matchers::Contains;

TEST_CASE("error: no device", "[runtime][error]") {
  std::string why;
  if (runtime::device_available(&why)) {
    SUCCEED("a GPU is present here: the gpu suite covers the runtime");
    return;
  }
  CHECK_THAT(why, Contains("CUDA driver"));
  unsigned line = 0;
  try {
    line = __LINE__; runtime::DeviceBuffer buffer(1024);
    FAIL("expected a wave::Error");
  } catch (const Error& e) {
    CHECK(e.line() == line);
    CHECK_THAT(e.file(), Contains("runtime_test.cpp"));
    CHECK(e.op() == "runtime");
    CHECK_THAT(e.message(), Contains("expected a GPU, but found " + why));
  }
}
