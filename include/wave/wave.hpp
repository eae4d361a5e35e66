// wave-cpp: whole-tensor GPU kernels in C++, with the distribution strategy stated apart.
//
//   #include <wave/wave.hpp>
//   using namespace wave;
//   WAVE_SYMBOL(M); WAVE_SYMBOL(N); WAVE_SYMBOL(BLOCK_M); WAVE_SYMBOL(BLOCK_N);
//
//   auto copy = kernel("copy",
//       Constraints{WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0),
//                   WaveConstraint(M, BLOCK_M), WaveConstraint(N, BLOCK_N),
//                   HardwareConstraint{}},
//       [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); });
//
// The pieces, one header each:
//   symbol.hpp, expr.hpp   symbols and symbolic expressions (compile-time and runtime forms)
//   dtype.hpp, dims.hpp    element types and symbolic shapes
//   values.hpp             Memory (kernel arguments) and Register (computed values)
//   constraints.hpp        Workgroup/Wave/Tiling/Hardware constraints and Assumption
//   index_mapping.hpp      iterator-based index mappings for read and write
//   ops/*.hpp              read, write, mma, iterate, elementwise math, reductions, ...
//   kernel.hpp             kernel(): tracing to a graph, and the `wave` IR through the JIT
//   compile.hpp            compile(): a CompiledKernel to launch on device pointers
//   runtime.hpp            the GPU runtime: devices, memory, modules (not included here)
#pragma once

#include "wave/compile.hpp"
#include "wave/constraints.hpp"
#include "wave/dims.hpp"
#include "wave/dtype.hpp"
#include "wave/error.hpp"
#include "wave/expr.hpp"
#include "wave/graph.hpp"
#include "wave/graph_dot.hpp"
#include "wave/index_mapping.hpp"
#include "wave/kernel.hpp"
#include "wave/mma.hpp"
#include "wave/ops/conditional.hpp"
#include "wave/ops/elementwise.hpp"
#include "wave/ops/index.hpp"
#include "wave/ops/iterate.hpp"
#include "wave/ops/memory.hpp"
#include "wave/ops/mma.hpp"
#include "wave/ops/print.hpp"
#include "wave/ops/reduce.hpp"
#include "wave/ops/schedule.hpp"
#include "wave/ops/set_symbol.hpp"
#include "wave/ops/shape.hpp"
#include "wave/ops/signal.hpp"
#include "wave/ops/slice.hpp"
#include "wave/options.hpp"
#include "wave/symbol.hpp"
#include "wave/values.hpp"
