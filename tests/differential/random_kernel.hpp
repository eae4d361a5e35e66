// Random kernels for the differential test: from a seed, a valid kernel graph, its tiling
// and random inputs. Most are memory-bound over dims [B, M, N] (rank 1 to 3, sizes aligned
// and not); some are GEMMs with a random epilogue: on mma.sync from global memory
// (makeGemm), or scheduled as a Hopper kernel author would (makeScheduledGemm: shared
// operands, random tilings, dtypes, B layouts and schedule options).
// The body reads one to three tensors (f32 or f16, all of the dims or a subset of them,
// broadcast), combines them in a random expression of elementwise ops kept in a bounded
// range, may reduce over the innermost or an outer dim and combine the result back, and
// writes one or two outputs (f32 or f16, maybe transposed). The interpreter gives the
// reference; the GPU must match it (tests/gpu/differential_test.cpp), and on any machine
// the interpreter and the compiler must take every such kernel without crashing
// (tests/unit/differential_test.cpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <wave/interpret.hpp>
#include <wave/wave.hpp>

#include "kernels/gemm.hpp"

namespace differential {
using namespace wave;

// The GEMM example's symbols, a batch dim and the wave tiles.
using examples::gemm::BLOCK_K;
using examples::gemm::BLOCK_M;
using examples::gemm::BLOCK_N;
using examples::gemm::K;
using examples::gemm::M;
using examples::gemm::N;
WAVE_SYMBOL(B);
WAVE_SYMBOL(WAVE_M);
WAVE_SYMBOL(WAVE_N);

struct Tensor {
  graph::MemoryType type;
  std::vector<std::int64_t> sizes;
  std::int64_t count() const {
    std::int64_t n = 1;
    for (std::int64_t s : sizes) n *= s;
    return n;
  }
  std::size_t bytes() const { return static_cast<std::size_t>(count()) * elements::size_of(type.dtype); }
};

struct RandomKernel {
  std::uint64_t seed = 0;
  graph::KernelGraph graph;
  CompileOptions options;
  Subs launch_sizes;         // the dims left out of options.subs: given at launch
  std::vector<Tensor> args;  // inputs first, then outputs
  std::size_t inputs = 0;
  std::string description;   // the program, for failure messages
  double tolerance = 0;      // relative; 0: the output dtype's rounding
};

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) { kernel_.seed = seed; }

  RandomKernel make() {
    const double kind = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
    RandomKernel k = kind < 0.15 ? makeGemm() : kind < 0.45 ? makeScheduledGemm() : makeMemoryBound();
    // A quarter of the kernels take some of their problem dims at launch (one kernel for
    // every size): each of B, M, N, K that the kernel has, with even odds.
    if (chance(0.25)) {
      Subs fixed;
      for (Sub& sub : k.options.subs) {
        const bool problem_dim = sub.symbol == "B" || sub.symbol == "M" || sub.symbol == "N" || sub.symbol == "K";
        (problem_dim && chance(0.5) ? k.launch_sizes : fixed).push_back(sub);
      }
      k.options.subs = std::move(fixed);
      // A reduction over a dim known only at launch needs the fact that one workgroup covers
      // it, as a user states it (the launch checks it).
      for (const Sub& sub : k.launch_sizes) {
        if (sub.symbol != reduce_dim_) continue;
        if (sub.symbol == "N") k.graph.constraints += Assumption(N <= BLOCK_N);
        if (sub.symbol == "M") k.graph.constraints += Assumption(M <= BLOCK_M);
      }
      if (!k.launch_sizes.empty()) {
        std::ostringstream at_launch;
        for (const Sub& sub : k.launch_sizes) at_launch << " " << sub.symbol;
        k.description = "(at launch:" + at_launch.str() + ") " + k.description;
      }
    }
    return k;
  }

  // A memory-bound kernel over [B, M, N] (rank 1 to 3): reads, an elementwise expression,
  // maybe a reduction, one or two writes.
  RandomKernel makeMemoryBound() {
    const int rank = pick(1, 3);
    static const char* names[] = {"B", "M", "N"};
    for (int d = 3 - rank; d < 3; ++d) dims_.push_back(names[d]);
    static const std::int64_t sizes[] = {1, 3, 7, 16, 33, 64, 100, 128, 255, 256, 1000};
    for (const std::string& d : dims_) {
      std::int64_t s = sizes[pick(0, 10)];
      if (d == "B") s = std::min<std::int64_t>(s, 7);
      size_[d] = s;
    }
    const bool reduce = chance(0.4);
    // The innermost dim N: workgroup tiles of BLOCK_N split among waves of WAVE_N; a
    // reduction over it needs the whole row in one workgroup.
    const std::int64_t n = size_["N"];
    std::int64_t block_n = std::int64_t(32) << pick(0, 4);
    reduce_dim_ = reduce ? (rank > 1 && chance(0.3) ? "M" : "N") : "";
    if (reduce_dim_ == "N") block_n = std::max<std::int64_t>(32, std::bit_ceil(static_cast<std::uint64_t>(n)));
    const std::int64_t waves_n = std::min<std::int64_t>(block_n / 32, std::int64_t(1) << pick(0, 2));
    std::int64_t block_m = rank > 1 ? std::int64_t(1) << pick(0, 2) : 1;
    if (reduce_dim_ == "M") block_m = std::max<std::int64_t>(1, std::bit_ceil(static_cast<std::uint64_t>(size_["M"])));
    if (rank > 1 && block_m * waves_n > 16) block_m = std::max<std::int64_t>(1, 16 / waves_n);
    if (reduce_dim_ == "M" && block_m < size_["M"]) reduce_dim_ = "";  // would not fit a workgroup
    Constraints c{WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(N, WAVE_N),
                  HardwareConstraint{.threads_per_wave = 32}};
    kernel_.options.subs = {{N, n}, {BLOCK_N, block_n}, {WAVE_N, block_n / waves_n}};
    if (rank > 1) {
      c += WorkgroupConstraint(M, BLOCK_M, 1);
      c += WaveConstraint(M, WAVE_M);
      const std::int64_t wave_m = reduce_dim_ == "M" ? block_m : (chance(0.5) ? 1 : block_m);
      kernel_.options.subs.push_back({M, size_["M"]});
      kernel_.options.subs.push_back({BLOCK_M, block_m});
      kernel_.options.subs.push_back({WAVE_M, wave_m});
    }
    if (rank > 2) {
      c += WorkgroupConstraint(B, 1, 2);
      kernel_.options.subs.push_back({B, size_["B"]});
    }
    kernel_.options.cache = false;
    kernel_.graph.name = "random_" + std::to_string(kernel_.seed);
    kernel_.graph.loc = {"tests/differential/random_kernel.hpp", 1, 1};
    kernel_.graph.constraints = c;
    body();
    kernel_.description = program_.str();
    return std::move(kernel_);
  }

  // C[(B,) M, N] = epilogue(A B^T) as a kernel author schedules it on Hopper: f16 or bf16
  // operands through shared memory (wgmma and TMA where they fit, the target's MMA kind),
  // B stored [N, K] or [K, N], maybe batched, a random tiling and random schedule options
  // (stages, TMA, warp specialization, persistent grid, stream-K, clusters), shapes that end
  // inside a tile or not, then a random epilogue over a bias [N], a scale [M] or a residual,
  // written as f32, f16 or bf16.
  RandomKernel makeScheduledGemm() {
    const bool batched = chance(0.2);
    dims_ = batched ? std::vector<std::string>{"B", "M", "N"} : std::vector<std::string>{"M", "N"};
    static const std::int64_t mn_sizes[] = {1, 8, 63, 64, 100, 128, 129, 200, 256, 300};
    static const std::int64_t k_sizes[] = {8, 16, 40, 64, 72, 128, 200, 256, 264, 512};
    size_["B"] = batched ? pick(1, 3) : 1;
    size_["M"] = mn_sizes[pick(0, 9)];
    size_["N"] = mn_sizes[pick(0, 9)];
    size_["K"] = k_sizes[pick(0, 9)];
    struct Tiling {
      std::int64_t m, n, k, wm, wn;
    };
    // Warpgroup tilings (4 or 8 waves of 64-row strips), one wgmma cannot take (two waves:
    // mma.sync), 16- to 128-byte rows of K.
    static const Tiling tilings[] = {{128, 128, 64, 64, 64}, {128, 256, 64, 64, 64}, {256, 128, 64, 64, 64},
                                     {64, 128, 32, 32, 32},  {64, 256, 16, 64, 64},  {128, 128, 32, 64, 64},
                                     {64, 64, 64, 32, 32},   {128, 64, 64, 64, 64}};
    Tiling t = tilings[pick(0, 7)];
    // Mostly 16-bit operands; some 8-bit ones (f8 on wgmma's k32 where B is [N, K], i8
    // summed exactly in i32).
    static const DataType operand_types[] = {DataType::f16,    DataType::bf16,   DataType::f16,
                                             DataType::bf16,   DataType::f16,    DataType::bf16,
                                             DataType::f8e4m3, DataType::f8e5m2, DataType::i8};
    const DataType in = operand_types[pick(0, 8)];
    // wgmma sums f8 products with about 14 bits, truncating (docs/language.md).
    if (in == DataType::f8e4m3 || in == DataType::f8e5m2) kernel_.tolerance = 1e-2;
    // 8-bit operands: the same bytes per K row (the 8-bit MMA kinds take K by 32).
    if (bit_width(in) == 8) t.k *= 2;
    const bool k_major_b = chance(0.3);
    Constraints c{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1), TilingConstraint(K, BLOCK_K),
                  WaveConstraint(M, WAVE_M), WaveConstraint(N, WAVE_N), HardwareConstraint{}};
    if (batched) c += WorkgroupConstraint(B, 1, 2);
    kernel_.options.subs = {{M, size_["M"]}, {N, size_["N"]}, {K, size_["K"]}, {BLOCK_M, t.m},
                            {BLOCK_N, t.n},  {BLOCK_K, t.k},  {WAVE_M, t.wm},  {WAVE_N, t.wn}};
    if (batched) kernel_.options.subs.push_back({B, size_["B"]});
    CompileOptions& o = kernel_.options;
    o.cache = false;
    o.pipeline_stages = pick(0, 4);
    o.tma = chance(0.85);
    o.warp_specialize = chance(0.5);
    o.persistent = chance(0.4);
    o.stream_k = o.persistent && chance(0.4);
    o.cluster_size = chance(0.25) ? 2 : 1;
    program_ << "tiles " << t.m << "x" << t.n << "x" << t.k << " waves " << t.wm << "x" << t.wn << ", "
             << wave::name(in) << (k_major_b ? ", B[K, N]" : ", B[N, K]") << (batched ? ", batched" : "")
             << ", stages " << o.pipeline_stages << (o.tma ? "" : ", no TMA")
             << (o.warp_specialize ? ", specialized" : "") << (o.persistent ? ", persistent" : "")
             << (o.stream_k ? ", stream-K" : "") << (o.cluster_size > 1 ? ", clusters of 2" : "") << ": ";
    kernel_.graph.name = "random_scheduled_gemm_" + std::to_string(kernel_.seed);
    kernel_.graph.loc = {"tests/differential/random_kernel.hpp", 1, 1};
    kernel_.graph.constraints = c;
    auto with_batch = [&](std::vector<std::string> d) {
      if (batched) d.insert(d.begin(), "B");
      return d;
    };
    const std::vector<std::string> a_dims = with_batch({"M", "K"});
    const std::vector<std::string> b_dims = with_batch(k_major_b ? std::vector<std::string>{"K", "N"}
                                                                 : std::vector<std::string>{"N", "K"});
    const graph::ValueId a = argument(a_dims, in, "shared"), b = argument(b_dims, in, "shared");
    std::vector<std::pair<graph::ValueId, graph::MemoryType>> extra;
    for (auto dims : {std::vector<std::string>{"N"}, std::vector<std::string>{"M"}, dims_})
      if (chance(0.35)) {
        static const DataType dtypes[] = {DataType::f16, DataType::bf16, DataType::f32};
        const DataType dtype = dtypes[pick(0, 2)];
        extra.push_back({argument(dims, dtype), {dims, dtype, "global"}});
      }
    kernel_.inputs = kernel_.args.size();
    const graph::ValueId acc = sum_loop(a, a_dims, b, b_dims, in, in == DataType::i8 ? DataType::i32 : DataType::f32);
    static const DataType outputs[] = {DataType::f32, DataType::f16, DataType::bf16};
    epilogue(acc, extra, outputs[pick(0, 2)]);
    kernel_.description = program_.str();
    return std::move(kernel_);
  }

  // C[M, N] = epilogue(A[M, K] B[N, K]^T): f16 operands on mma.sync tiles, an f32
  // accumulator over a K loop, then a random elementwise epilogue that may read a bias
  // [N], a scale [M] or a residual [M, N], written as f32 or f16.
  RandomKernel makeGemm() {
    static const std::int64_t sizes[] = {16, 33, 64, 100, 128, 200};
    dims_ = {"M", "N"};
    size_["M"] = sizes[pick(0, 5)];
    size_["N"] = sizes[pick(0, 5)];
    size_["K"] = sizes[pick(0, 5)];
    const std::int64_t block_m = chance(0.5) ? 32 : 64, block_n = chance(0.5) ? 32 : 64;
    const std::int64_t block_k = chance(0.5) ? 16 : 32;
    const std::int64_t wave_m = chance(0.5) ? block_m : block_m / 2, wave_n = chance(0.5) ? block_n : block_n / 2;
    Constraints c{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1), TilingConstraint(K, BLOCK_K),
                  WaveConstraint(M, WAVE_M), WaveConstraint(N, WAVE_N),
                  HardwareConstraint{.threads_per_wave = 32, .mma = MMA::F32_16x8x16_F16}};
    kernel_.options.subs = {{M, size_["M"]}, {N, size_["N"]}, {K, size_["K"]}, {BLOCK_M, block_m},
                            {BLOCK_N, block_n}, {BLOCK_K, block_k}, {WAVE_M, wave_m}, {WAVE_N, wave_n}};
    kernel_.options.cache = false;
    kernel_.graph.name = "random_gemm_" + std::to_string(kernel_.seed);
    kernel_.graph.loc = {"tests/differential/random_kernel.hpp", 1, 1};
    kernel_.graph.constraints = c;
    const graph::ValueId a = argument({"M", "K"}, DataType::f16), b = argument({"N", "K"}, DataType::f16);
    std::vector<std::pair<graph::ValueId, graph::MemoryType>> extra;
    for (auto dims : {std::vector<std::string>{"N"}, std::vector<std::string>{"M"}, std::vector<std::string>{"M", "N"}})
      if (chance(0.35)) {
        const DataType dtype = chance(0.5) ? DataType::f16 : DataType::f32;
        extra.push_back({argument(dims, dtype), {dims, dtype, "global"}});
      }
    kernel_.inputs = kernel_.args.size();
    const graph::ValueId acc = sum_loop(a, {"M", "K"}, b, {"N", "K"}, DataType::f16, DataType::f32);
    epilogue(acc, extra, chance(0.4) ? DataType::f16 : DataType::f32);
    kernel_.description = program_.str();
    return std::move(kernel_);
  }

 private:
  // acc = iterate<K>(mma(read(a), read(b), acc)) from a zero accumulator over dims_.
  graph::ValueId sum_loop(graph::ValueId a, const std::vector<std::string>& a_dims, graph::ValueId b,
                          const std::vector<std::string>& b_dims, DataType in, DataType sum) {
    graph::Node fill;
    fill.fill = 0.0;
    const graph::ValueId zero = node(graph::OpKind::Register, {}, {dims_, sum}, fill);
    // The loop: its body is built in a block of its own, then the iterate node holds it.
    graph::Block body;
    const graph::ValueId carried = fresh();
    body.args = {carried};
    body.arg_types = {{dims_, sum}};
    types_[carried] = body.arg_types[0];
    graph::Block* outer = block_;
    block_ = &body;
    const graph::ValueId ra = node(graph::OpKind::Read, {a}, {a_dims, in});
    const graph::ValueId rb = node(graph::OpKind::Read, {b}, {b_dims, in});
    const graph::ValueId product = node(graph::OpKind::Mma, {ra, rb, carried}, {dims_, sum});
    effect(graph::OpKind::Yield, {product});
    block_ = outer;
    graph::Node loop;
    loop.dim = "K";
    loop.regions.push_back(std::move(body));
    const graph::ValueId acc = node(graph::OpKind::Iterate, {zero}, {dims_, sum}, std::move(loop));
    program_ << name(acc) << " = iterate<K>(mma(read(A), read(B), acc)); ";
    return f32_of(acc);
  }

  // write(cast<out>(expression(acc, read(extra)...)), C): a random elementwise epilogue.
  void epilogue(graph::ValueId acc, const std::vector<std::pair<graph::ValueId, graph::MemoryType>>& extra,
                DataType out_type) {
    std::vector<graph::ValueId> leaves{acc};
    for (auto& [id, type] : extra) {
      const graph::ValueId r = node(graph::OpKind::Read, {id}, {type.dims, type.dtype});
      program_ << name(r) << " = read([" << join(type.dims) << "] " << wave::name(type.dtype) << "); ";
      leaves.push_back(f32_of(r));
    }
    graph::ValueId value = expression(leaves, pick(0, 3));
    if (type(value).dims.size() != dims_.size()) value = binary(graph::OpKind::Add, value, acc, dims_);
    value = cast_to(value, out_type);
    const graph::ValueId out = argument(dims_, out_type);
    effect(graph::OpKind::Write, {value, out});
    program_ << "write(" << name(value) << ", C); ";
  }

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  graph::ValueId fresh() { return next_++; }
  std::string name(graph::ValueId v) { return "%" + std::to_string(v); }

  graph::ValueId argument(std::vector<std::string> dims, DataType dtype, std::string address_space = "global") {
    const graph::ValueId id = fresh();
    graph::MemoryType type{dims, dtype, std::move(address_space)};
    kernel_.graph.args.push_back({id, type});
    Tensor t{type, {}};
    for (const std::string& d : dims) t.sizes.push_back(size_[d]);
    kernel_.args.push_back(t);
    return id;
  }

  graph::ValueId node(graph::OpKind kind, std::vector<graph::ValueId> operands, graph::TensorType type,
                      graph::Node extra = {}) {
    graph::Node n = std::move(extra);
    n.kind = kind;
    n.operands = std::move(operands);
    n.loc = {"tests/differential/random_kernel.hpp", static_cast<unsigned>(block_->nodes.size() + 2), 1};
    const graph::ValueId id = fresh();
    n.results = {id};
    n.result_types = {type};
    block_->nodes.push_back(std::move(n));
    types_[id] = type;
    return id;
  }

  void effect(graph::OpKind kind, std::vector<graph::ValueId> operands) {
    graph::Node n;
    n.kind = kind;
    n.operands = std::move(operands);
    n.loc = {"tests/differential/random_kernel.hpp", static_cast<unsigned>(block_->nodes.size() + 2), 1};
    block_->nodes.push_back(std::move(n));
  }

  const graph::TensorType& type(graph::ValueId v) { return types_.at(v); }

  // The dims of `a` and `b` together, in the kernel's order (elementwise broadcasting).
  std::vector<std::string> joined(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> out;
    for (const std::string& d : dims_)
      if (std::count(a.begin(), a.end(), d) || std::count(b.begin(), b.end(), d)) out.push_back(d);
    return out;
  }

  graph::ValueId cast_to(graph::ValueId v, DataType dtype) {
    if (type(v).dtype == dtype) return v;
    const graph::ValueId r = node(graph::OpKind::Cast, {v}, {type(v).dims, dtype});
    program_ << name(r) << " = cast<" << wave::name(dtype) << ">(" << name(v) << "); ";
    return r;
  }
  graph::ValueId f32_of(graph::ValueId v) { return cast_to(v, DataType::f32); }

  // `kind(a, b)` of elementwise binary op `kind`, over `dims` in f32.
  graph::ValueId binary(graph::OpKind kind, graph::ValueId a, graph::ValueId b, std::vector<std::string> dims) {
    const graph::ValueId r = node(kind, {a, b}, {std::move(dims), DataType::f32});
    program_ << name(r) << " = " << graph::op_name(kind) << "(" << name(a) << ", " << name(b) << "); ";
    return r;
  }

  graph::ValueId constant(double value) {
    graph::Node n;
    n.fill = value;
    const graph::ValueId r = node(graph::OpKind::Register, {}, {{}, DataType::f32}, n);
    program_ << name(r) << " = " << value << "; ";
    return r;
  }

  // A random elementwise expression over `leaves` (f32), its values kept within a few
  // units of the inputs' [-2, 2]: growth is tamed by tanh, and divisors are >= 1.
  graph::ValueId expression(const std::vector<graph::ValueId>& leaves, int depth) {
    if (depth == 0 || chance(0.25)) return leaves[pick(0, static_cast<int>(leaves.size()) - 1)];
    using K = graph::OpKind;
    const int choice = pick(0, 9);
    if (choice < 5) {
      graph::ValueId a = expression(leaves, depth - 1), b = chance(0.2) ? constant(pick(-4, 4) * 0.5)
                                                                          : expression(leaves, depth - 1);
      static const K kinds[] = {K::Add, K::Sub, K::Mul, K::Maximum, K::Minimum};
      const K kind = kinds[choice];
      if (kind == K::Mul) {
        a = tame(a);
        b = tame(b);
      }
      a = spanning(a, b);
      return binary(kind, a, b, joined(type(a).dims, type(b).dims));
    }
    graph::ValueId a = expression(leaves, depth - 1);
    switch (choice) {
      case 5: {  // a / (|b| + 1)
        const graph::ValueId b = expression(leaves, depth - 1);
        a = spanning(a, b);
        const graph::ValueId abs = node(K::Abs, {b}, type(b));
        const graph::ValueId one = constant(1.0);
        const graph::ValueId den = node(K::Add, {abs, one}, type(b));
        const graph::ValueId r = node(K::Div, {a, den}, {joined(type(a).dims, type(b).dims), DataType::f32});
        program_ << name(r) << " = " << name(a) << " / (|" << name(b) << "| + 1); ";
        return r;
      }
      case 6: {  // exp2 of a tamed value
        const graph::ValueId t = tame(a);
        const graph::ValueId r = node(K::Exp2, {t}, type(t));
        program_ << name(r) << " = exp2(" << name(t) << "); ";
        return r;
      }
      case 7: {  // sqrt(|a| + 1)
        const graph::ValueId abs = node(K::Abs, {a}, type(a));
        const graph::ValueId up = node(K::Add, {abs, constant(1.0)}, type(a));
        const graph::ValueId r = node(K::Sqrt, {up}, type(a));
        program_ << name(r) << " = sqrt(|" << name(a) << "| + 1); ";
        return r;
      }
      case 8: {
        const graph::ValueId r = node(K::Neg, {a}, type(a));
        program_ << name(r) << " = -" << name(a) << "; ";
        return r;
      }
      default: {  // a round trip through f16 (a cast the GPU rounds as the interpreter does)
        const graph::ValueId h = node(K::Cast, {a}, {type(a).dims, DataType::f16});
        const graph::ValueId r = node(K::Cast, {h}, {type(a).dims, DataType::f32});
        program_ << name(r) << " = f32(f16(" << name(a) << ")); ";
        return r;
      }
    }
  }

  // `a`, broadcast to the dims of both where neither's dims hold the other's (an
  // elementwise op needs one operand's dims within the other's).
  graph::ValueId spanning(graph::ValueId a, graph::ValueId b) {
    const std::vector<std::string>&da = type(a).dims, &db = type(b).dims;
    auto within = [](const std::vector<std::string>& x, const std::vector<std::string>& y) {
      return std::all_of(x.begin(), x.end(), [&](const std::string& d) { return std::count(y.begin(), y.end(), d); });
    };
    if (within(da, db) || within(db, da)) return a;
    const graph::ValueId r = node(graph::OpKind::Broadcast, {a}, {joined(da, db), DataType::f32});
    program_ << name(r) << " = broadcast(" << name(a) << "); ";
    return r;
  }

  // tanh(a) * 2: within (-2, 2).
  graph::ValueId tame(graph::ValueId a) {
    const graph::ValueId t = node(graph::OpKind::Tanh, {a}, type(a));
    const graph::ValueId r = node(graph::OpKind::Mul, {t, constant(2.0)}, type(a));
    program_ << name(r) << " = tanh(" << name(a) << ") * 2; ";
    return r;
  }

  void body() {
    // Inputs: the first over every dim, the others over every dim or a subset.
    const int inputs = pick(1, 3);
    std::vector<std::pair<graph::ValueId, graph::MemoryType>> memories;
    for (int i = 0; i < inputs; ++i) {
      std::vector<std::string> dims;
      for (const std::string& d : dims_)
        if (i == 0 || chance(0.6)) dims.push_back(d);
      if (dims.empty()) dims.push_back(dims_.back());
      const DataType dtype = chance(0.5) ? DataType::f16 : DataType::f32;
      memories.push_back({argument(dims, dtype), {dims, dtype, "global"}});
    }
    kernel_.inputs = kernel_.args.size();
    std::vector<graph::ValueId> leaves;
    for (auto& [id, type] : memories) {
      const graph::ValueId r = node(graph::OpKind::Read, {id}, {type.dims, type.dtype});
      program_ << name(r) << " = read(arg" << leaves.size() << " [" << join(type.dims) << "] "
               << wave::name(type.dtype) << "); ";
      leaves.push_back(f32_of(r));
    }
    graph::ValueId value = expression(leaves, pick(1, 4));
    // The result must span every dim (a leaf may not): add the first input.
    if (type(value).dims.size() != dims_.size()) value = binary(graph::OpKind::Add, value, leaves[0], dims_);
    graph::ValueId reduced = -1;
    if (!reduce_dim_.empty()) {
      const bool is_max = chance(0.5);
      std::vector<std::string> rest;
      for (const std::string& d : dims_)
        if (d != reduce_dim_) rest.push_back(d);
      graph::Node n;
      n.dim = reduce_dim_;
      reduced = node(is_max ? graph::OpKind::ReduceMax : graph::OpKind::ReduceSum, {value}, {rest, DataType::f32}, n);
      program_ << name(reduced) << " = " << (is_max ? "max" : "sum") << "<" << reduce_dim_ << ">(" << name(value)
               << "); ";
      if (chance(0.6) && !rest.empty())  // normalize by it, as softmax does
        value = binary(graph::OpKind::Sub, value, reduced, dims_);
    }
    // Outputs: the value (f32 or f16, maybe transposed), and the reduction if any.
    const DataType out_type = chance(0.3) ? DataType::f16 : DataType::f32;
    value = cast_to(value, out_type);
    std::vector<std::string> out_dims = dims_;
    if (dims_.size() > 1 && chance(0.25)) std::swap(out_dims[out_dims.size() - 1], out_dims[out_dims.size() - 2]);
    const graph::ValueId out = argument(out_dims, out_type);
    effect(graph::OpKind::Write, {value, out});
    program_ << "write(" << name(value) << ", out0 [" << join(out_dims) << "]); ";
    if (reduced >= 0 && !type(reduced).dims.empty()) {
      const graph::ValueId out1 = argument(type(reduced).dims, DataType::f32);
      effect(graph::OpKind::Write, {reduced, out1});
      program_ << "write(" << name(reduced) << ", out1 [" << join(type(reduced).dims) << "]); ";
    }
  }

  static std::string join(const std::vector<std::string>& dims) {
    std::string s;
    for (const std::string& d : dims) s += (s.empty() ? "" : ", ") + d;
    return s;
  }

  std::mt19937_64 rng_;
  RandomKernel kernel_;
  graph::Block* block_ = &kernel_.graph.body;  // where nodes go (a loop's body while built)
  std::vector<std::string> dims_;
  std::map<std::string, std::int64_t> size_;
  std::string reduce_dim_;
  std::map<graph::ValueId, graph::TensorType> types_;
  graph::ValueId next_ = 0;
  std::ostringstream program_;
};

inline RandomKernel random_kernel(std::uint64_t seed) { return Generator(seed).make(); }

// How many kernels a test tries: WAVE_DIFFERENTIAL_KERNELS, else `fallback`.
inline int kernel_count(int fallback) {
  const char* env = std::getenv("WAVE_DIFFERENTIAL_KERNELS");
  return env ? std::atoi(env) : fallback;
}

// The seed of kernel i of a run that starts at `first` (Catch's seed): printed on failure.
inline std::uint64_t seed_of(std::uint64_t first, int i) { return first * 1000003u + static_cast<std::uint64_t>(i); }

// Random inputs in [-2, 2] (f16 as bits), outputs poisoned (NaN), as byte buffers.
inline std::vector<std::vector<std::uint8_t>> random_buffers(const RandomKernel& k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<std::vector<std::uint8_t>> buffers;
  for (std::size_t i = 0; i < k.args.size(); ++i) {
    const Tensor& t = k.args[i];
    std::vector<std::uint8_t> bytes(t.bytes());
    for (std::int64_t e = 0; e < t.count(); ++e) {
      if (is_integer(t.type.dtype))  // i8 operands in [-8, 8]
        elements::store_integer(t.type.dtype, bytes.data(), e, static_cast<std::int64_t>(std::lround(u(rng) * 4)));
      else
        elements::store_float(t.type.dtype, bytes.data(), e,
                              i < k.inputs ? elements::round_float(t.type.dtype, u(rng))
                                           : std::numeric_limits<double>::quiet_NaN());
    }
    buffers.push_back(std::move(bytes));
  }
  return buffers;
}

// The interpreter's outputs for `buffers` (which it fills in place).
inline void interpret_kernel(const RandomKernel& k, std::vector<std::vector<std::uint8_t>>& buffers) {
  std::vector<interpreter::HostArg> args;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (i < k.inputs)
      args.emplace_back(static_cast<const std::uint8_t*>(buffers[i].data()));
    else
      args.emplace_back(buffers[i].data());
  }
  Subs all = k.options.subs;
  all.insert(all.end(), k.launch_sizes.begin(), k.launch_sizes.end());
  interpret(k.graph, all, args);
}

// How many elements of output `i` differ from the reference beyond float rounding (f16
// outputs and the GPU's approximate exp2/tanh allowed for), NaN (unwritten) included.
inline std::int64_t mismatches(const RandomKernel& k, std::size_t i, const std::vector<std::uint8_t>& got,
                               const std::vector<std::uint8_t>& want, std::string* first) {
  const Tensor& t = k.args[i];
  const double tolerance = k.tolerance > 0 ? k.tolerance : t.type.dtype == DataType::f32 ? 2e-3 : 1e-2;
  std::int64_t wrong = 0;
  for (std::int64_t e = 0; e < t.count(); ++e) {
    const double g = elements::load_float(t.type.dtype, got.data(), e);
    const double w = elements::load_float(t.type.dtype, want.data(), e);
    if (std::abs(g - w) <= tolerance * (1.0 + std::abs(w))) continue;
    if (!wrong++ && first) *first = "output " + std::to_string(i - k.inputs) + " element " + std::to_string(e) +
                                    ": " + std::to_string(g) + " for " + std::to_string(w);
  }
  return wrong;
}

}  // namespace differential
