// How benchmarks time GPU work: warm-up runs, then the median of timed runs (device events).
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include <wave/runtime.hpp>

namespace wave::bench {

inline double median_ms(const std::function<void()>& enqueue, int runs, int warmup = 3) {
  for (int i = 0; i < warmup; ++i) runtime::elapsed_ms(enqueue);
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(runtime::elapsed_ms(enqueue));
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

}  // namespace wave::bench
