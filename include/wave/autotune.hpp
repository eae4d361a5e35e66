// autotune(): compiles a kernel under several configurations (tile sizes and other subs,
// or whole CompileOptions with the compiler's knobs), times each on the device, and
// returns the fastest, compiled. The choice is kept on
// disk, keyed by the kernel, its subs, the configurations, the device and the compiler, so
// that a later process starts with the winner in the time of one (cached) compile.
//
//   auto gemm = autotune(gemm_kernel, {.subs = {{M, 4096}, {N, 4096}, {K, 4096}}},
//                        {{{BLOCK_M, 128}, {BLOCK_N, 128}, {BLOCK_K, 64}},
//                         {{BLOCK_M, 64}, {BLOCK_N, 64}, {BLOCK_K, 32}}},
//                        {a, b, c});
//   gemm.kernel(a, b, c);   // gemm.best: the winner's index; gemm.ms: each one's median
//
// Configurations are compiled in parallel threads; one the compiler rejects is skipped
// (reported with `progress`), and an error only if all are. With `check`, each compiled
// configuration is run once and checked before it is timed; one whose output is wrong is
// skipped the same way (`Autotuned::rejected` says why). Each timed run is device events
// around `launches_per_run` back-to-back launches, so the host's dispatch stays outside the
// window. The launch arguments are device pointers the kernel may read and write while it
// is timed (outputs are overwritten). Needs wave::jit and a GPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "wave/compile.hpp"
#include "wave/runtime.hpp"

namespace wave {

struct AutotuneOptions {
  int warmup = 3;              // runs before timing each configuration
  int runs = 20;               // timed runs; the median counts
  int launches_per_run = 10;   // back-to-back launches in one timed run
  bool progress = false;    // configurations done / total and the best so far, on stderr
  bool use_cache = true;    // read and write the choice on disk
  std::string cache_dir;    // default: the kernel cache's folder, under autotune/
  // Runs the kernel on the timing's arguments (poisoning its outputs first) and returns ""
  // when its output is right, else what is wrong. Not called for a choice read from disk.
  std::function<std::string(const CompiledKernel&)> check;
};

struct Autotuned {
  CompiledKernel kernel;
  std::size_t best = 0;        // index of the winning configuration
  std::vector<double> ms;      // median per configuration (NaN: rejected or not timed)
  bool from_cache = false;     // the winner came from disk; nothing was timed
  std::vector<std::string> rejected;  // per configuration: why it was not timed, or ""
};

namespace detail {

// The folder autotune keeps its choices in: the kernel cache's, under autotune/.
inline std::filesystem::path autotune_folder(const AutotuneOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  return std::filesystem::path(jit::default_cache_dir()) / "autotune";
}

inline std::string subs_text(const Subs& subs) {
  std::string s;
  for (const Sub& sub : subs) s += sub.symbol + (sub.is_address_space ? "@" : "=") + std::to_string(sub.value) + " ";
  return s;
}

// What of a configuration's options changes the code: its subs and the compiler's knobs.
inline std::string options_text(const CompileOptions& o) {
  return subs_text(o.subs) + "| target " + runtime::target_or_default(o.target) + ", stages " +
         std::to_string(o.pipeline_stages) + ", warpgroup_mma " + std::to_string(o.warpgroup_mma) + ", tma " +
         std::to_string(o.tma) + ", warp_specialize " + std::to_string(o.warp_specialize) + ", persistent " +
         std::to_string(o.persistent) + ", stream_k " + std::to_string(o.stream_k) + ", overlap_mma " +
         std::to_string(o.overlap_mma) + ", cluster_size " + std::to_string(o.cluster_size);
}

// The choice's identity: everything the timings depend on.
inline std::string autotune_key(const std::string& kernel, const std::vector<CompileOptions>& configs,
                                const std::string& device) {
  std::ostringstream key;
  key << "kernel " << kernel << "\ndevice " << device << "\ncompiler " << jit::compiler_version() << "\n";
  for (const CompileOptions& c : configs) key << "config " << options_text(c) << "\n";
  return key.str();
}

// Each configuration's options: `base` with the configuration's subs added (replacing
// those of the same symbols).
inline std::vector<CompileOptions> with_subs(const CompileOptions& base, const std::vector<Subs>& configs) {
  std::vector<CompileOptions> all;
  for (const Subs& config : configs) {
    CompileOptions o = base;
    for (const Sub& s : config) {
      auto same = [&](const Sub& t) { return t.symbol == s.symbol; };
      o.subs.erase(std::remove_if(o.subs.begin(), o.subs.end(), same), o.subs.end());
      o.subs.push_back(s);
    }
    all.push_back(std::move(o));
  }
  return all;
}

inline std::filesystem::path autotune_file(const std::filesystem::path& folder, const std::string& key) {
  return folder / (std::to_string(std::hash<std::string>{}(key)) + ".txt");
}

// The stored winner for `key`, if a file holds it (the whole key is compared: a hash
// collision or a torn file reads as no choice).
inline std::optional<std::size_t> read_choice(const std::filesystem::path& file, const std::string& key,
                                              std::size_t configs) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  if (s.size() <= key.size() || s.compare(0, key.size(), key) != 0) return std::nullopt;
  std::istringstream rest(s.substr(key.size()));
  std::string word;
  std::size_t best = 0;
  if (!(rest >> word >> best) || word != "best" || best >= configs) return std::nullopt;
  return best;
}

// Written to a temporary file, then renamed: readers see the old choice or the new one.
inline void write_choice(const std::filesystem::path& file, const std::string& key, std::size_t best) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  const std::filesystem::path temp = file.string() + ".tmp" + std::to_string(std::hash<std::string>{}(key) ^ best);
  {
    std::ofstream out(temp);
    out << key << "best " << best << "\n";
    if (!out) return;  // a read-only or full folder: the choice is just not kept
  }
  std::filesystem::rename(temp, file, ec);
  if (ec) std::filesystem::remove(temp, ec);
}

// The tuning itself, over callbacks: `compile_one(i)` compiles configuration i (or throws
// wave::Error), `time_one(kernel)` gives one run's milliseconds per launch. Separate from the
// device so that its choice and its cache can be tested without one.
inline Autotuned tune(const std::string& key, std::size_t configs,
                      const std::function<CompiledKernel(std::size_t)>& compile_one,
                      const std::function<double(const CompiledKernel&)>& time_one, const AutotuneOptions& options) {
  const std::filesystem::path file = autotune_file(autotune_folder(options), key);
  const double none = std::numeric_limits<double>::quiet_NaN();
  if (options.use_cache)
    if (auto best = read_choice(file, key, configs)) {
      if (options.progress) std::fprintf(stderr, "autotune: configuration %zu from %s\n", *best, file.c_str());
      return {compile_one(*best), *best, std::vector<double>(configs, none), true, std::vector<std::string>(configs)};
    }
  std::vector<std::future<CompiledKernel>> compiled;
  for (std::size_t i = 0; i < configs; ++i) compiled.push_back(std::async(std::launch::async, compile_one, i));
  std::vector<std::optional<CompiledKernel>> kernels(configs);
  std::optional<Error> first_error;
  std::vector<double> ms(configs, none);
  std::vector<std::string> rejected(configs);
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < configs; ++i) {
    try {
      kernels[i].emplace(compiled[i].get());
    } catch (const Error& e) {
      if (!first_error) first_error = e;
      rejected[i] = e.what();
    }
    if (kernels[i] && options.check) {
      rejected[i] = options.check(*kernels[i]);
      if (!rejected[i].empty()) {
        rejected[i] = "wrong output: " + rejected[i];
        if (!first_error) first_error = Error("", "autotune", std::source_location::current(), rejected[i]);
      }
    }
    if (!rejected[i].empty()) {
      if (options.progress) std::fprintf(stderr, "autotune: configuration %zu rejected: %s\n", i, rejected[i].c_str());
      continue;
    }
    for (int w = 0; w < options.warmup; ++w) time_one(*kernels[i]);
    std::vector<double> times;
    for (int r = 0; r < std::max(1, options.runs); ++r) times.push_back(time_one(*kernels[i]));
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    ms[i] = times[times.size() / 2];
    if (!best || ms[i] < ms[*best]) best = i;
    if (options.progress)
      std::fprintf(stderr, "autotune: %zu/%zu configurations, this %.4f ms, best %zu at %.4f ms\n", i + 1, configs,
                   ms[i], *best, ms[*best]);
  }
  if (!best) {
    if (first_error) throw *first_error;
    throw Error("", "autotune", std::source_location::current(),
                expected_found("at least one configuration", "none"));
  }
  if (options.use_cache) write_choice(file, key, *best);
  return {std::move(*kernels[*best]), *best, std::move(ms), false, std::move(rejected)};
}

}  // namespace detail

// `configs`: whole compile options, one per configuration: tilings and the compiler's knobs
// (`pipeline_stages`, `tma`, `warpgroup_mma`, `warp_specialize`, `persistent`, `stream_k`,
// `overlap_mma`, `cluster_size`) alike.
template <class Fn>
Autotuned autotune(const Kernel<Fn>& kernel, const std::vector<CompileOptions>& configs,
                   std::vector<const void*> args, const LaunchOptions& how = {}, const AutotuneOptions& options = {},
                   std::source_location where = std::source_location::current()) {
  if (configs.empty())
    throw Error("", "autotune", where, expected_found("at least one configuration", "none"));
  const std::string key = detail::autotune_key(kernel.name(), configs, runtime::device_info(where).name);
  return detail::tune(
      key, configs.size(), [&](std::size_t i) { return compile(kernel, configs[i], where); },
      [&](const CompiledKernel& k) {
        const int launches = std::max(1, options.launches_per_run);
        return double(runtime::elapsed_ms(
                   [&] {
                     for (int l = 0; l < launches; ++l) k.launch(args, how, where);
                   },
                   where)) /
               launches;
      },
      options);
}

// `configs`: subs added to (and overriding) `base.subs`, one set per configuration.
template <class Fn>
Autotuned autotune(const Kernel<Fn>& kernel, const CompileOptions& base, const std::vector<Subs>& configs,
                   std::vector<const void*> args, const LaunchOptions& how = {}, const AutotuneOptions& options = {},
                   std::source_location where = std::source_location::current()) {
  return autotune(kernel, detail::with_subs(base, configs), std::move(args), how, options, where);
}

}  // namespace wave
