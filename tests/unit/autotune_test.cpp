// autotune's choice and its disk cache, without a device: configurations compiled for real
// (to PTX), timed by a stand-in clock under which one is twice as slow as the other.
// tests/gpu/autotune_test.cpp times them on the GPU.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "fixtures/autotuned.hpp"
#include "wave/autotune.hpp"

using namespace wave;
namespace at = wave::fixtures::autotuned;

TEST_CASE("autotune picks the faster configuration and a later run reads it from disk", "[autotune]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "wave-autotune-test";
  std::filesystem::remove_all(dir);
  const AutotuneOptions options{.warmup = 1, .runs = 5, .cache_dir = dir.string()};
  const std::vector<Subs> configs = at::configs();  // R = 8 steps, then R = 4
  // The stand-in clock: a kernel's time is its loop's steps (R), known by its PTX.
  std::mutex mutex;
  std::map<std::string, std::int64_t> steps;
  int compiles = 0;
  auto compile_one = [&](std::size_t i) {
    CompiledKernel k = compile(at::make_kernel(), at::options_for(configs[i], 1 << 20));
    std::lock_guard lock(mutex);
    ++compiles;
    steps[k.ptx().ptx] = configs[i].front().value;
    return k;
  };
  auto steps_of = [&](const CompiledKernel& k) { return steps.at(k.ptx().ptx); };
  int timed = 0;
  auto time_one = [&](const CompiledKernel& k) {
    ++timed;
    return double(steps_of(k));
  };
  const std::string key =
      detail::autotune_key("reduce_steps", detail::with_subs(at::options_for({}, 1 << 20), configs), "stand-in");
  const Autotuned first = detail::tune(key, configs.size(), compile_one, time_one, options);
  CHECK(first.best == 1);
  CHECK_FALSE(first.from_cache);
  REQUIRE(first.ms.size() == 2);
  CHECK(first.ms[0] == Approx(2 * first.ms[1]));
  CHECK(steps_of(first.kernel) == 4);
  CHECK(compiles == 2);
  CHECK(timed == 2 * (1 + 5));
  CHECK(steps.size() == 2);  // the two configurations compile to different code
  // Again (as a new process would): the winner from disk, compiled once, nothing timed.
  compiles = 0;
  timed = 0;
  const Autotuned again = detail::tune(key, configs.size(), compile_one, time_one, options);
  CHECK(again.from_cache);
  CHECK(again.best == 1);
  CHECK(compiles == 1);
  CHECK(timed == 0);
  CHECK(steps_of(again.kernel) == 4);
  CHECK(std::isnan(again.ms[0]));
  // Another key (other configurations) is tuned afresh; a torn or foreign file is no choice.
  const std::filesystem::path file = detail::autotune_file(dir, key);
  REQUIRE(std::filesystem::exists(file));
  for (const std::string& damage : {std::string(""), std::string("kernel other\nbest 0\n"), key + "best 7\n",
                                    key.substr(0, key.size() / 2)}) {
    std::ofstream(file) << damage;
    compiles = 0;
    const Autotuned retuned = detail::tune(key, configs.size(), compile_one, time_one, options);
    CHECK_FALSE(retuned.from_cache);
    CHECK(retuned.best == 1);
    CHECK(compiles == 2);
  }
  // A folder it cannot write: tuned, not kept, no error.
  const AutotuneOptions unwritable{.warmup = 0, .runs = 1, .cache_dir = "/proc/wave-autotune-cannot-write"};
  CHECK(detail::tune(key, configs.size(), compile_one, time_one, unwritable).best == 1);
  // Configurations the compiler rejects are skipped; all rejected is the first error.
  auto reject_first = [&](std::size_t i) {
    if (i == 0) throw Error("reduce_steps", "compile", std::source_location::current(), "rejected on purpose");
    return compile_one(i);
  };
  const AutotuneOptions fresh{.warmup = 0, .runs = 1, .use_cache = false};
  CHECK(detail::tune(key, 2, reject_first, time_one, fresh).best == 1);
  auto reject_all = [&](std::size_t) -> CompiledKernel {
    throw Error("reduce_steps", "compile", std::source_location::current(), "rejected on purpose");
  };
  CHECK_THROWS_WITH(detail::tune(key, 2, reject_all, time_one, fresh), Catch::Contains("rejected on purpose"));

  // A configuration whose output check fails is never timed nor chosen, however fast.
  AutotuneOptions checked = fresh;
  std::size_t checks = 0;
  checked.check = [&](const CompiledKernel& k) -> std::string {
    ++checks;
    return steps_of(k) == steps_of(compile_one(1)) ? "element 7 is 3, expected 4" : "";
  };
  const Autotuned right = detail::tune(key, configs.size(), compile_one, time_one, checked);
  CHECK(checks == configs.size());
  CHECK(right.best != 1);
  CHECK(std::isnan(right.ms[1]));
  CHECK(right.rejected[1] == "wrong output: element 7 is 3, expected 4");
  CHECK(right.rejected[right.best].empty());
  checked.check = [](const CompiledKernel&) -> std::string { return "NaN at 0"; };
  CHECK_THROWS_WITH(detail::tune(key, configs.size(), compile_one, time_one, checked),
                    Catch::Contains("wrong output: NaN at 0"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("autotune's configurations may differ in the compiler's knobs, and its key tells them apart",
          "[autotune]") {
  const CompileOptions base = at::options_for({}, 1 << 20);
  std::vector<CompileOptions> knobs(4, base);
  knobs[1].pipeline_stages = 2;
  knobs[2].tma = false;
  knobs[3].warpgroup_mma = false;
  const std::string key = detail::autotune_key("reduce_steps", knobs, "stand-in");
  // One line per configuration, each naming its knobs: four distinct lines.
  std::set<std::string> lines;
  std::istringstream in(key);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("config ", 0) == 0) lines.insert(line);
  CHECK(lines.size() == 4);
  CHECK_THAT(key, Catch::Contains("stages 2") && Catch::Contains("tma 0") && Catch::Contains("warpgroup_mma 0"));
  // The same choice keyed by subs alone names the same options (the subs API is this one's).
  CHECK(detail::autotune_key("reduce_steps", detail::with_subs(base, {{}}), "stand-in") ==
        detail::autotune_key("reduce_steps", {base}, "stand-in"));
  CHECK(detail::autotune_key("reduce_steps", {knobs[0], knobs[2]}, "stand-in") !=
        detail::autotune_key("reduce_steps", {knobs[0], knobs[1]}, "stand-in"));
}
