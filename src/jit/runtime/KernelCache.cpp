#include "runtime/KernelCache.h"

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace wave::jit {
namespace {

namespace fs = std::filesystem;

// FNV-1a: names entries and checks payloads. Collisions are harmless: an entry also
// stores its full key, and a checksum mismatch reads as a miss.
std::uint64_t fnv1a(const std::string& data) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = digits[v & 15];
  return s;
}

// Entry layout: magic line, then key size, payload size and payload checksum, then the
// key and the payload bytes.
constexpr const char* kMagic = "wave-cpp kernel cache entry v1\n";

}  // namespace

fs::path KernelCache::default_dir() {
  if (const char* dir = std::getenv("WAVE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "wave-cpp";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "wave-cpp";
  return fs::temp_directory_path() / "wave-cpp-cache";
}

fs::path KernelCache::entry_path(const std::string& key) const {
  return options_.dir / (hex(fnv1a(key)) + ".kernel");
}

std::optional<std::string> KernelCache::read_entry(const std::string& key) {
  std::ifstream in(entry_path(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::string magic(std::char_traits<char>::length(kMagic), '\0');
  std::uint64_t key_size = 0, payload_size = 0, checksum = 0;
  in.read(magic.data(), static_cast<std::streamsize>(magic.size()));
  in >> key_size >> payload_size >> checksum;
  in.get();  // the newline after the header
  // A foreign file, a short read (truncation), a different key (hash collision) or a
  // changed payload (corruption) all mean: not this kernel.
  auto reject = [&] {
    ++stats_.rejected;
    return std::nullopt;
  };
  if (!in || magic != kMagic || key_size != key.size() || payload_size > (std::uint64_t{1} << 32))
    return reject();
  std::string stored_key(key_size, '\0'), payload(payload_size, '\0');
  in.read(stored_key.data(), static_cast<std::streamsize>(key_size));
  in.read(payload.data(), static_cast<std::streamsize>(payload_size));
  if (!in || in.peek() != std::char_traits<char>::eof() || stored_key != key || fnv1a(payload) != checksum)
    return reject();
  return payload;
}

void KernelCache::write_entry(const std::string& key, const std::string& payload) {
  std::error_code ec;
  fs::create_directories(options_.dir, ec);
  const fs::path final_path = entry_path(key);
  // A unique temporary name, then rename: readers see a whole entry or none, even with
  // several processes writing the same kernel.
  std::random_device entropy;
  const fs::path tmp = final_path.string() + ".tmp." + hex((std::uint64_t{entropy()} << 32) | entropy());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << kMagic << key.size() << ' ' << payload.size() << ' ' << fnv1a(payload) << '\n';
    out.write(key.data(), static_cast<std::streamsize>(key.size()));
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    if (!out.flush()) {
      fs::remove(tmp, ec);
      return;  // a cache that cannot write is only a slower cache
    }
  }
  fs::rename(tmp, final_path, ec);
  if (ec) fs::remove(tmp, ec);
}

std::optional<std::string> KernelCache::lookup(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (auto it = memory_.find(key); it != memory_.end()) {
    ++stats_.memory_hits;
    return it->second;
  }
  if (options_.disk)
    if (auto payload = read_entry(key)) {
      ++stats_.disk_hits;
      memory_.emplace(key, *payload);
      return payload;
    }
  ++stats_.misses;
  return std::nullopt;
}

void KernelCache::store(const std::string& key, const std::string& payload) {
  std::lock_guard lock(mutex_);
  memory_[key] = payload;
  if (options_.disk) write_entry(key, payload);
}

std::string KernelCache::get_or_build(const std::string& key, const std::function<std::string()>& build) {
  if (auto cached = lookup(key)) return *cached;
  std::string payload = build();
  store(key, payload);
  return payload;
}

KernelCache::Stats KernelCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace wave::jit
