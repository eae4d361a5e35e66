// The kernel cache under what applications do to it: threads and processes sharing a
// folder, entries damaged or left by another version, folders that cannot be written or
// fill up. Each case: the right payload or a miss (then a rebuild), never a crash.
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <wave/wave.hpp>

#include "kernels/copy.hpp"
#include "runtime/KernelCache.h"

namespace fs = std::filesystem;
using wave::jit::KernelCache;

namespace {

fs::path scratch_dir() {
  std::random_device entropy;
  fs::path dir = fs::temp_directory_path() / ("wave-cache-stress-" + std::to_string(entropy()));
  fs::remove_all(dir);
  return dir;
}

// The payload for key k: a few KiB of bytes that differ per key (NULs and newlines too).
std::string payload_for(int k) {
  std::mt19937 rng(static_cast<unsigned>(k) * 7919u + 1u);
  std::string s(2048 + 97 * k, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::string key_for(int k) { return "module { kernel " + std::to_string(k) + " }|sm_90a|v1"; }

// Runs `body` in a child process; its exit status (0: every check in it held).
int in_child(const std::function<bool()>& body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body() ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Keys 0..n-1 through `cache`, starting at `first` so that writers overlap; whether every
// payload came back right.
bool churn(KernelCache& cache, int n, int first, int rounds) {
  bool right = true;
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < n; ++i) {
      const int k = (first + i) % n;
      right &= cache.get_or_build(key_for(k), [&] { return payload_for(k); }) == payload_for(k);
    }
  return right;
}

bool only_whole_entries(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() != ".kernel") return false;
  return true;
}

}  // namespace

TEST_CASE("8 threads on one cache: same and different keys, every payload right", "[cache][stress]") {
  const fs::path dir = scratch_dir();
  KernelCache cache({.dir = dir});
  std::vector<std::thread> threads;
  std::vector<char> right(8, 0);
  for (int t = 0; t < 8; ++t) threads.emplace_back([&, t] { right[t] = churn(cache, 12, t * 3, 3); });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 8; ++t) CHECK(right[t]);
  KernelCache next_start({.dir = dir});
  for (int k = 0; k < 12; ++k) CHECK(next_start.lookup(key_for(k)) == payload_for(k));
  CHECK(only_whole_entries(dir));
  fs::remove_all(dir);
}

TEST_CASE("2 processes and their threads writing one folder at once", "[cache][stress]") {
  const fs::path dir = scratch_dir();
  auto worker = [&](int first) {
    KernelCache cache({.dir = dir});
    bool right = true;
    std::vector<std::thread> threads;
    std::vector<char> ok(4, 0);
    for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { ok[t] = churn(cache, 16, first + 4 * t, 4); });
    for (auto& t : threads) t.join();
    for (char o : ok) right &= o != 0;
    // A fresh cache in each process reads what both wrote, whole.
    KernelCache fresh({.dir = dir});
    for (int k = 0; k < 16; ++k) right &= fresh.get_or_build(key_for(k), [&] { return payload_for(k); }) == payload_for(k);
    return right;
  };
  const pid_t other = fork();
  if (other == 0) _exit(worker(8) ? 0 : 1);
  const bool here = worker(0);
  int status = 0;
  waitpid(other, &status, 0);
  CHECK(here);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  KernelCache after({.dir = dir});
  for (int k = 0; k < 16; ++k) CHECK(after.lookup(key_for(k)) == payload_for(k));
  CHECK(after.stats().rejected == 0);
  CHECK(only_whole_entries(dir));
  fs::remove_all(dir);
}

TEST_CASE("entries emptied, unreadable, or written by another version read as misses", "[cache][stress]") {
  const fs::path dir = scratch_dir();
  const std::string key = key_for(1), payload = payload_for(1);
  KernelCache({.dir = dir}).store(key, payload);
  const fs::path file = KernelCache({.dir = dir}).entry_path(key);
  REQUIRE(fs::exists(file));

  SECTION("emptied") { fs::resize_file(file, 0); }
  SECTION("another version's format") {
    std::string bytes;
    {
      std::ifstream in(file, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    bytes.replace(bytes.find(" v1\n"), 4, " v0\n");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  }
  SECTION("not a file (a folder of the entry's name, which no one can read as one)") {
    fs::remove(file);
    fs::create_directory(file);
  }

  KernelCache cache({.dir = dir});
  CHECK_FALSE(cache.lookup(key).has_value());
  CHECK(cache.get_or_build(key, [&] { return payload; }) == payload);  // rebuilt, kept in memory
  CHECK(cache.lookup(key) == payload);
  fs::remove_all(dir);
}

TEST_CASE("a cache folder that cannot be created or written is only a slower cache", "[cache][stress]") {
  const fs::path base = scratch_dir();
  fs::create_directories(base);
  SECTION("the folder's path is a file") {
    const fs::path blocked = base / "not-a-folder";
    std::ofstream(blocked) << "x";
    KernelCache cache({.dir = blocked});
    CHECK(cache.get_or_build(key_for(2), [] { return payload_for(2); }) == payload_for(2));
    CHECK(cache.lookup(key_for(2)) == payload_for(2));
    CHECK_FALSE(KernelCache({.dir = blocked}).lookup(key_for(2)).has_value());
    CHECK(fs::is_regular_file(blocked));
  }
  SECTION("the disk fills up mid-entry (a file size limit, in a child process)") {
    const fs::path dir = base / "full";
    const int status = in_child([&] {
      std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails instead of killing
      const rlimit limit{1024, 1024};
      setrlimit(RLIMIT_FSIZE, &limit);
      KernelCache cache({.dir = dir});
      const bool right = cache.get_or_build(key_for(3), [] { return payload_for(3); }) == payload_for(3);
      return right && !KernelCache({.dir = dir}).lookup(key_for(3)).has_value();
    });
    CHECK(status == 0);
    // No partial entry and no temporary file left behind.
    CHECK((!fs::exists(dir) || fs::is_empty(dir)));
  }
  fs::remove_all(base);
}

TEST_CASE("8 threads compiling two kernels into one cache folder get the uncached PTX", "[cache][stress][compile]") {
  namespace ex = examples::copy;
  const fs::path dir = scratch_dir();
  auto options = [&](int block_n, bool cache) {
    wave::CompileOptions o = ex::default_options();
    o.subs = {{ex::M, 64}, {ex::N, 1000}, {ex::BLOCK_M, 1}, {ex::BLOCK_N, block_n}};
    o.cache = cache;
    o.cache_dir = dir.string();
    return o;
  };
  const std::string want[2] = {wave::compile(ex::make_kernel(), options(256, false)).ptx().ptx,
                               wave::compile(ex::make_kernel(), options(512, false)).ptx().ptx};
  REQUIRE(want[0] != want[1]);
  std::vector<std::thread> threads;
  std::vector<std::string> got(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] { got[t] = wave::compile(ex::make_kernel(), options(t % 2 ? 512 : 256, true)).ptx().ptx; });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 8; ++t) CHECK(got[t] == want[t % 2]);
  CHECK(only_whole_entries(dir));
  fs::remove_all(dir);
}
