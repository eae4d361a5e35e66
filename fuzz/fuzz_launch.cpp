// Fuzz target: a compiled kernel's launch checks (no GPU needed): random argument types and
// compiled sizes, then launches with random pointers (null, misaligned) or tensors (any
// dtype, shape, strides) and dynamic sizes. Every launch here must end in a wave::Error:
// a rejected argument, or, once the checks pass, no device.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "random_graph.hpp"
#include "wave/compile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wave;
  FuzzedDataProvider in(data, size);
  std::vector<graph::MemoryType> args;
  std::vector<std::vector<std::int64_t>> sizes;
  for (int i = in.ConsumeIntegralInRange<int>(0, 4); i > 0; --i) {
    args.push_back(fuzz::random_memory_type(in));
    sizes.emplace_back();
    for (std::size_t d = 0; d < args.back().dims.size(); ++d)
      sizes.back().push_back(in.ConsumeBool() ? -1 : in.ConsumeIntegralInRange<std::int64_t>(-2, 1 << 20));
    if (in.ConsumeIntegralInRange<int>(0, 15) == 0) sizes.back().push_back(7);  // a size too many
  }
  std::vector<Assumption> assumptions;
  for (int i = in.ConsumeIntegralInRange<int>(0, 2); i > 0; --i)
    assumptions.emplace_back(fuzz::random_expr(in), std::source_location::current());
  jit::PtxKernel ptx{.entry = "fuzzed", .ptx = "not ptx"};
  for (auto& g : ptx.grid_dims) g = {fuzz::random_name(in), in.ConsumeIntegralInRange<unsigned>(0, 64)};
  const CompiledKernel kernel(ptx, args, sizes, assumptions, "fuzzed", std::source_location::current());

  LaunchOptions how;
  how.sizes = fuzz::random_subs(in);
  alignas(16) static std::uint8_t memory[1024];
  try {
    if (in.ConsumeBool()) {
      std::vector<const void*> pointers;
      for (int i = in.ConsumeIntegralInRange<int>(0, 5); i > 0; --i)
        pointers.push_back(in.ConsumeBool() ? nullptr : memory + in.ConsumeIntegralInRange<int>(0, 64));
      switch (pointers.size()) {  // launch takes an initializer list
        case 0: kernel.launch({}, how); break;
        case 1: kernel.launch({pointers[0]}, how); break;
        case 2: kernel.launch({pointers[0], pointers[1]}, how); break;
        case 3: kernel.launch({pointers[0], pointers[1], pointers[2]}, how); break;
        case 4: kernel.launch({pointers[0], pointers[1], pointers[2], pointers[3]}, how); break;
        default: kernel.launch({pointers[0], pointers[1], pointers[2], pointers[3], pointers[4]}, how); break;
      }
    } else {
      std::vector<TensorArg> tensors;
      for (int i = in.ConsumeIntegralInRange<int>(0, 5); i > 0; --i) {
        TensorArg t;
        t.data = in.ConsumeBool() ? nullptr : memory + in.ConsumeIntegralInRange<int>(0, 64);
        t.dtype = fuzz::random_dtype(in);
        for (int d = in.ConsumeIntegralInRange<int>(0, 4); d > 0; --d)
          t.shape.push_back(in.ConsumeBool() ? in.ConsumeIntegralInRange<std::int64_t>(-1, 9) : in.ConsumeIntegral<std::int64_t>());
        for (int d = in.ConsumeIntegralInRange<int>(0, 4); d > 0; --d)
          t.strides.push_back(in.ConsumeBool() ? in.ConsumeIntegralInRange<std::int64_t>(-1, 64) : in.ConsumeIntegral<std::int64_t>());
        tensors.push_back(t);
      }
      kernel.launch(tensors, how);
    }
  } catch (const Error&) {
    return 0;
  }
  __builtin_trap();  // a launch without a GPU went through
}
