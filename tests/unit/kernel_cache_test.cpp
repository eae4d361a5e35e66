// The kernel cache: memory and disk hits, and entries damaged on disk rebuilt.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "runtime/KernelCache.h"

namespace fs = std::filesystem;
using wave::jit::KernelCache;

namespace {

// A fresh folder per test.
fs::path scratch_dir() {
  std::random_device entropy;
  fs::path dir = fs::temp_directory_path() / ("wave-cache-test-" + std::to_string(entropy()));
  fs::remove_all(dir);
  return dir;
}

std::string random_payload(std::size_t n) {
  std::mt19937 rng(Catch::rngSeed());
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());  // binary, with NULs and newlines
  return s;
}

}  // namespace

TEST_CASE("an entry stored is found in memory, and by a new cache on disk", "[cache]") {
  const fs::path dir = scratch_dir();
  const std::string key = "module { func.func @copy() }|sm_90a|wave 0.1", ptx = random_payload(4096);
  {
    KernelCache cache({.dir = dir});
    int builds = 0;
    auto build = [&] { ++builds; return ptx; };
    CHECK(cache.get_or_build(key, build) == ptx);
    CHECK(cache.get_or_build(key, build) == ptx);
    CHECK(builds == 1);
    CHECK(cache.stats().memory_hits == 1);
    CHECK(cache.stats().misses == 1);
  }
  KernelCache next_start({.dir = dir});
  CHECK(next_start.lookup(key) == ptx);
  CHECK(next_start.stats().disk_hits == 1);
  CHECK_FALSE(next_start.lookup(key + " with other options").has_value());
  // Only whole entries: no temporary files are left behind.
  for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().extension() == ".kernel");
  fs::remove_all(dir);
}

TEST_CASE("a truncated or corrupt entry is detected and rebuilt", "[cache]") {
  const fs::path dir = scratch_dir();
  const std::string key = "gemm|sm_90a", ptx = random_payload(1000);
  KernelCache({.dir = dir}).store(key, ptx);
  const fs::path file = KernelCache({.dir = dir}).entry_path(key);
  REQUIRE(fs::exists(file));

  SECTION("truncated") { fs::resize_file(file, fs::file_size(file) - 10); }
  SECTION("a flipped byte in the payload") {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    char c;
    f.seekg(-3, std::ios::end);
    f.get(c);
    f.seekp(-3, std::ios::end);
    f.put(static_cast<char>(c ^ 0x5a));
  }
  SECTION("garbage") { std::ofstream(file, std::ios::trunc) << "not a cache entry"; }
  SECTION("an entry of another key under the same name") {
    // As after a hash collision: the stored key differs from the one asked for.
    const fs::path other = KernelCache({.dir = dir}).entry_path("other");
    KernelCache({.dir = dir}).store("other", "other payload");
    fs::rename(other, file);
  }

  KernelCache cache({.dir = dir});
  CHECK_FALSE(cache.lookup(key).has_value());
  CHECK(cache.stats().rejected == 1);
  CHECK(cache.get_or_build(key, [&] { return ptx; }) == ptx);
  CHECK(KernelCache({.dir = dir}).lookup(key) == ptx);  // rewritten whole
  fs::remove_all(dir);
}

TEST_CASE("a memory-only cache writes nothing", "[cache]") {
  const fs::path dir = scratch_dir();
  KernelCache cache({.dir = dir, .disk = false});
  cache.store("k", "v");
  CHECK(cache.lookup("k") == "v");
  CHECK_FALSE(fs::exists(dir));
}

TEST_CASE("the default folder follows WAVE_CACHE_DIR", "[cache]") {
  const char* saved = std::getenv("WAVE_CACHE_DIR");
  const std::string previous = saved ? saved : "";
  setenv("WAVE_CACHE_DIR", "/tmp/wave-cache-elsewhere", 1);
  CHECK(KernelCache::default_dir() == fs::path("/tmp/wave-cache-elsewhere"));
  if (saved) setenv("WAVE_CACHE_DIR", previous.c_str(), 1);
  else unsetenv("WAVE_CACHE_DIR");
  CHECK(KernelCache::default_dir().filename() != "");
}
