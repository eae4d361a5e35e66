//===- KernelCache.h - compiled kernels kept in memory and on disk --*- C++ -*-===//
//
// A compiled kernel is looked up by a key that covers everything its code depends on
// (the IR, the options, the compiler version): first in memory, then in a folder on disk,
// so a program's second start skips compilation. Disk entries are written atomically
// (temporary file, then rename) and carry the full key and a checksum: a truncated or
// corrupt entry, or one whose name collides, reads as a miss and is rebuilt.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_RUNTIME_KERNELCACHE_H
#define WAVE_JIT_RUNTIME_KERNELCACHE_H

#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace wave::jit {

class KernelCache {
 public:
  struct Options {
    std::filesystem::path dir = default_dir();
    bool disk = true;  // false: memory only
  };

  // $WAVE_CACHE_DIR, else $XDG_CACHE_HOME/wave-cpp, else ~/.cache/wave-cpp.
  static std::filesystem::path default_dir();

  KernelCache() : KernelCache(Options{}) {}
  explicit KernelCache(Options options) : options_(std::move(options)) {}

  std::optional<std::string> lookup(const std::string& key);
  void store(const std::string& key, const std::string& payload);
  // The cached payload for `key`, or `build()`'s, which is then stored.
  std::string get_or_build(const std::string& key, const std::function<std::string()>& build);

  // Where `key`'s entry lives on disk.
  std::filesystem::path entry_path(const std::string& key) const;

  struct Stats {
    int memory_hits = 0, disk_hits = 0, misses = 0, rejected = 0;  // rejected: corrupt entries
  };
  Stats stats() const;

 private:
  std::optional<std::string> read_entry(const std::string& key);
  void write_entry(const std::string& key, const std::string& payload);

  Options options_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::string> memory_;
  Stats stats_;
};

}  // namespace wave::jit

#endif
