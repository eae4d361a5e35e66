// GPU tests run where a device exists; elsewhere they exit 77 (ctest: skipped), saying why.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include <wave/runtime.hpp>

int main(int argc, char** argv) {
  std::string why;
  if (!wave::runtime::device_available(&why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  const wave::DeviceInfo info = wave::runtime::device_info();
  std::printf("device 0: %s, compute capability %d.%d, %d SMs, %zu MiB, driver %d\n", info.name.c_str(),
              info.compute_major, info.compute_minor, info.multiprocessors, info.memory_bytes >> 20,
              info.driver_version);
  return Catch::Session().run(argc, argv);
}
