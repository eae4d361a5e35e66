"""What the bench scripts that set wave-cpp beside a torch reference share: timing the
reference the way the C++ benches time wave-cpp (warm-up runs, then the median of timed
runs, each CUDA events around LAUNCHES_PER_RUN back-to-back calls, so host dispatch stays
outside the window), and picking each shape's best configuration from a bench's output."""
import torch


LAUNCHES_PER_RUN = 10  # as bench/bench.hpp's kLaunchesPerRun


def median_ms(fn, warmup=3, runs=20):
    """Milliseconds per call of fn."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(LAUNCHES_PER_RUN):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / LAUNCHES_PER_RUN)
    return sorted(times)[runs // 2]


def best_by_shape(out, tag, shape, rate, config):
    """For the lines of `out` whose first field is `tag`: shape(fields) -> the highest
    rate(fields), with config(fields) of the line that gave it."""
    best = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == tag:
            key, value = shape(f), rate(f)
            if value > best.get(key, (0, ""))[0]:
                best[key] = (value, config(f))
    return best
