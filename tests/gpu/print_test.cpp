// Device print: the lines a kernel prints on the GPU, captured from stdout, are the lines
// the interpreter prints for the same inputs: the same set of (label, indices), each as
// many times (once per loop step inside iterate), values equal to float rounding.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <unistd.h>

#include <wave/interpret.hpp>

#include "fixtures/device_run.hpp"
#include "fixtures/printing.hpp"
#include "host_half.hpp"

using namespace wave;
namespace px = wave::fixtures::printing;

namespace {

// What `run` writes to stdout (where the driver prints the device's printf buffer).
template <class Run>
std::string captured_stdout(Run&& run) {
  std::fflush(stdout);
  char path[] = "/tmp/wave-print-XXXXXX";
  const int file = mkstemp(path);
  REQUIRE(file >= 0);
  const int saved = dup(STDOUT_FILENO);
  dup2(file, STDOUT_FILENO);
  run();
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  close(file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  return text.str();
}

// Lines by their text before " = ", each with its values in order.
std::map<std::string, std::vector<double>> parse(const std::string& text) {
  std::map<std::string, std::vector<double>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.rfind(" = ");
    if (eq == std::string::npos) continue;
    lines[line.substr(0, eq)].push_back(std::stod(line.substr(eq + 3)));
  }
  for (auto& [key, values] : lines) std::sort(values.begin(), values.end());
  return lines;
}

// How many keys differ (missing, extra, another count of lines) or hold values apart.
std::size_t differences(const std::string& gpu, const std::string& host, std::string& first) {
  auto g = parse(gpu), h = parse(host);
  std::size_t wrong = 0;
  auto note = [&](const std::string& what) {
    if (!wrong++) first = what;
  };
  for (const auto& [key, values] : h) {
    auto it = g.find(key);
    if (it == g.end() || it->second.size() != values.size()) {
      note(key + ": " + std::to_string(values.size()) + " lines expected, " +
           std::to_string(it == g.end() ? 0 : it->second.size()) + " printed");
      continue;
    }
    for (std::size_t i = 0; i < values.size(); ++i)
      if (!(std::abs(it->second[i] - values[i]) <= 1e-4 * std::abs(values[i]) + 1e-4))
        note(key + ": " + std::to_string(it->second[i]) + " for " + std::to_string(values[i]));
  }
  for (const auto& [key, values] : g)
    if (!h.count(key)) note(key + ": printed, not expected");
  return wrong;
}

}  // namespace

TEST_CASE("device print: rows, masks, limits and a replicated row sum, as the interpreter prints them",
          "[gpu][print]") {
  std::mt19937 rng(Catch::rngSeed());
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (auto [m, n] : {std::pair{3, 200}, std::pair{2, 256}, std::pair{1, 7}}) {
    INFO("M x N = " << m << " x " << n);
    const CompileOptions options = px::rows_options(m, n);
    std::vector<float> x(std::size_t(m) * n), sums = fixtures::poisoned<float>(m);
    for (float& v : x) v = u(rng);
    const auto printing = compile(px::rows_kernel(), options);
    const std::string gpu = captured_stdout([&] { fixtures::run_on_device(printing, {}, x, sums); });
    std::ostringstream host;
    std::vector<float> host_sums(m);
    interpret(px::rows_kernel(), options, {x.data(), host_sums.data()}, host);
    std::string first;
    CHECK(differences(gpu, host.str(), first) == 0);
    INFO(first);
    CHECK(first.empty());
    // What it printed, apart from agreeing with the interpreter: each row's sum once, equal
    // to the float64 sum (f32 over at most 200 values in [-4, 4]: within 1e-4 relative of
    // the sum of magnitudes).
    const auto lines = parse(gpu);
    for (int row = 0; row < m; ++row) {
      double want = 0, magnitude = 0;
      for (int col = 0; col < n; ++col) {
        want += x[std::size_t(row) * n + col];
        magnitude += std::abs(x[std::size_t(row) * n + col]);
      }
      const auto it = lines.find("sum[M=" + std::to_string(row) + "]");
      INFO("row " << row);
      REQUIRE(it != lines.end());
      REQUIRE(it->second.size() == 1);
      CHECK(std::abs(it->second[0] - want) <= 1e-4 * magnitude + 1e-6);
    }
  }
}

TEST_CASE("device print: a GEMM accumulator at each K step", "[gpu][print]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [m, n, k] : {std::tuple{64, 64, 64}, std::tuple{33, 40, 50}}) {
    INFO("M x N x K = " << m << " x " << n << " x " << k);
    const CompileOptions options = px::gemm_options(m, n, k);
    std::vector<std::uint16_t> a(std::size_t(m) * k), b(std::size_t(n) * k);
    for (auto& v : a) v = examples::host::random_half(rng);
    for (auto& v : b) v = examples::host::random_half(rng);
    std::vector<float> c = fixtures::poisoned<float>(std::size_t(m) * n), host_c(std::size_t(m) * n);
    const auto gemm = compile(px::gemm_kernel(), options);
    const std::string gpu = captured_stdout([&] { fixtures::run_on_device(gemm, {}, a, b, c); });
    std::ostringstream host;
    interpret(px::gemm_kernel(), options, {a.data(), b.data(), host_c.data()}, host);
    std::string first;
    CHECK(differences(gpu, host.str(), first) == 0);
    INFO(first);
    CHECK(first.empty());
  }
}
