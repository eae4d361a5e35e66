// interpret(): runs a kernel on the CPU, on host arrays, with the language's meaning. No GPU,
// no compiler: the traced graph is evaluated op by op on whole tensors, so the result is a
// reference to check the GPU against, not a simulation of threads.
//
//   std::vector<std::uint16_t> a(M * K), b(N * K);        // f16 bits
//   std::vector<float> c(M * N);
//   interpret(gemm, {.subs = {{M, 256}, {N, 256}, {K, 256}, {BLOCK_M, 64}, ...}},
//             {a.data(), b.data(), c.data()});              // one pointer per Memory
//
// Arguments are dense, row-major arrays of their Memory's dtype: f16/bf16 as their 16 bits,
// the f8 types as their byte, i1 as one byte (nonzero is true). Pointers to const may only
// be read; a write to one is an error. `subs` needs every size (no dims are dynamic here)
// and the tiles of the loops' TilingConstraints; other tiles and settings do not change
// the meaning and are ignored.
//
// What the interpreter computes (the GPU lowering must agree):
// - a dim a DeviceConstraint splits holds rank RANK's slice of it (RANK in subs), as on
//   that rank's GPU;
// - inside iterate<K>, values with the dim K hold the current tile of it; positions past
//   a dim's end do not exist (reductions and mma never see them);
// - float ops compute exactly and round to nearest even in the result's dtype; f16 and
//   bf16 sums and maxima accumulate in f32; mma sums exact products and rounds once to the
//   accumulator's dtype; casts to f8 saturate; float to integer truncates toward zero;
// - integers wrap (two's complement); integer division truncates; i1 converts as 0 or 1;
// - print(value, "label") writes a line per element to std::cout (or the stream given),
//   in the GPU's format (wave/print_format.hpp), row-major;
// - through an index mapping with `.out_of_bounds = OutOfBounds::zero`, a point outside
//   the tensor reads 0 and is not written;
// - any other index mapping that points outside its tensor, a division by zero in an index
//   expression or of integers, and a write to a read-only argument are errors (wave::Error
//   at the op's line), never undefined behaviour.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iostream>
#include <map>
#include <source_location>
#include <string>
#include <vector>

#include "wave/interpreter/evaluator.hpp"
#include "wave/kernel.hpp"

namespace wave {

using interpreter::HostArg;

// Interprets a traced kernel graph with `subs`; print's lines go to `prints`.
inline void interpret(const graph::KernelGraph& kernel, const Subs& subs, const std::vector<HostArg>& args,
                      std::ostream& prints, std::source_location where = std::source_location::current()) {
  std::map<std::string, std::int64_t> symbols;
  for (const Sub& s : subs)
    if (!s.is_address_space) symbols[s.symbol] = s.value;
  interpreter::Evaluator(kernel, std::move(symbols), args, where, prints).run();
}

inline void interpret(const graph::KernelGraph& kernel, const Subs& subs, const std::vector<HostArg>& args,
                      std::source_location where = std::source_location::current()) {
  interpret(kernel, subs, args, std::cout, where);
}

template <class Fn>
void interpret(const Kernel<Fn>& kernel, const CompileOptions& options, std::initializer_list<HostArg> args,
               std::ostream& prints, std::source_location where = std::source_location::current()) {
  interpret(kernel.trace(options, where), options.subs, std::vector<HostArg>(args), prints, where);
}

template <class Fn>
void interpret(const Kernel<Fn>& kernel, const CompileOptions& options, std::initializer_list<HostArg> args,
               std::source_location where = std::source_location::current()) {
  interpret(kernel, options, args, std::cout, where);
}

}  // namespace wave
