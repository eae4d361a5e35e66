//===- DistributedLayout.h - questions about #wave.layout ------*- C++ -*-===//
//
// A #wave.layout maps (register, lane, wave) to the element a thread holds in its
// workgroup's tile. Tiles are compile-time constants, so every question a pass asks of a
// layout (which lanes share a row, whether two layouts put an element in the same thread,
// which registers are contiguous in memory) is answered here by enumerating its points.
// The builders make the layouts the hardware and the memory system want: coalesced runs
// for memory accesses, MMA operands and accumulators (NVIDIA mma.sync, Hopper wgmma
// warpgroups, AMD MFMA on waves of 64), and the slices and permutations that reductions,
// broadcasts and permutes derive from them.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_DISTRIBUTEDLAYOUT_H
#define WAVE_JIT_ANALYSIS_DISTRIBUTEDLAYOUT_H

#include "analysis/MMALayout.h"
#include "dialect/WaveDialect.h"

#include "mlir/IR/AffineMap.h"

#include <map>
#include <vector>

namespace wave::jit {

using dialect::LayoutAttr;

// The position of `dim` in `dims`; -1 where it is absent.
int dimIndex(llvm::ArrayRef<llvm::StringRef> dims, llvm::StringRef dim);

// `e` at integer dims `dims` (no symbols), with affine floordiv/ceildiv/mod semantics.
int64_t evaluateAffine(mlir::AffineExpr e, llvm::ArrayRef<int64_t> dims);

// The map's inputs for flat register, lane and wave indices (row-major over the axes).
llvm::SmallVector<int64_t> layoutInputs(LayoutAttr layout, int64_t reg, int64_t lane, int64_t wave);

// The tile position held in register `reg` of lane `lane` of wave `wave`.
llvm::SmallVector<int64_t> layoutPosition(LayoutAttr layout, int64_t reg, int64_t lane, int64_t wave);

// Every point of a layout, evaluated once per context (cached in the wave dialect). The
// questions the lowering asks of layouts (which registers share a row, which lane bits
// move along a dim, where a register went) revisit each point many times, and the same
// layouts come back in every pass and orientation tried; evaluating the map's expressions
// each time made them most of a compile.
class LayoutPoints {
 public:
  explicit LayoutPoints(LayoutAttr layout);
  // The tile position held in register `reg` of lane `lane` of wave `wave`.
  llvm::SmallVector<int64_t> at(int64_t reg, int64_t lane, int64_t wave) const;
  // The same position in place: `rank` consecutive values, valid while this object lives.
  const int64_t* data(int64_t reg, int64_t lane, int64_t wave) const;
  // Per dim: one past the largest position any point holds.
  llvm::SmallVector<int64_t> extent() const;

 private:
  int64_t registers_, lanes_, rank_;
  // [wave][lane][register][dim], then the extent; shared per context
  std::shared_ptr<const std::vector<int64_t>> positions_;
};

// The position of register `reg` as affine expressions of the lane (d0) and the wave (d1).
llvm::SmallVector<mlir::AffineExpr> positionOfRegister(LayoutAttr layout, int64_t reg);

// Per dim: one past the largest position any thread holds.
llvm::SmallVector<int64_t> layoutExtent(LayoutAttr layout);

// Whether every thread holds the same elements in `a` and `b` (register order aside).
bool sameElementsPerThread(LayoutAttr a, LayoutAttr b);

// For each register of `to`, the register of `from` holding the same element in every
// thread; none where some thread lacks one (the conversion then crosses threads).
std::optional<llvm::SmallVector<int64_t>> registerPermutation(LayoutAttr from, LayoutAttr to);

// A run of registers that hold consecutive elements along one dim.
struct RegisterRun {
  int64_t first;   // register index of the run's first element
  int64_t length;  // elements in the run
};
// The layout's registers as runs along `dim` of up to `maxLength` elements (a power of
// two dividing it), consecutive registers of the last axis, in every thread alike; runs of
// one where no such axis exists.
llvm::SmallVector<RegisterRun> registerRuns(LayoutAttr layout, unsigned dim, int64_t maxLength);

// Per position a layout holds: the first point holding it (the lowest thread
// t = wave * lanes + lane, and in it the lowest register) and how many points do.
struct PositionHolders {
  int64_t thread = 0, reg = 0, count = 0;
};
std::map<llvm::SmallVector<int64_t>, PositionHolders> positionHolders(LayoutAttr layout);

// The threads (t = wave * lanes + lane) in which a register holds an element first: where
// a layout replicates an element over threads or registers, the lowest thread, and in it
// the lowest register, is the one that holds it first. A set of the form
// {t : t & mask == value} over the layout's threads (which is what replication along lane
// and wave bits gives); `mask == 0 && value == 0` means every thread, `none` that the
// register holds only elements other registers hold first.
struct FirstHolders {
  bool none = false;
  int64_t mask = 0, value = 0;
};
// Per register of `layout`; failure where some register's set has no such form.
mlir::FailureOr<llvm::SmallVector<FirstHolders>> firstHolders(LayoutAttr layout);

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

// How a kernel's waves split its workgroup tile: one wave axis per dim a WaveConstraint
// divides (`waves` of them along it, `waveTile` elements each), row-major, the last fastest.
struct WaveGrid {
  llvm::SmallVector<std::string> dims;
  llvm::SmallVector<int64_t> waves;
  llvm::SmallVector<int64_t> waveTile;
  int64_t lanes = 32;
  int64_t count() const;
  int axisOf(llvm::StringRef dim) const;
};

// The wave-index stride of each wave axis (row-major, the last fastest): wave w's digit
// along axis a is w / strides[a] % waveAxes[a].
llvm::SmallVector<int64_t> waveAxisStrides(llvm::ArrayRef<int64_t> waveAxes);

// The runs of `run` elements along the last dim a tile of `extent` holds (`run` divides
// the last extent).
int64_t runCount(llvm::ArrayRef<int64_t> extent, int64_t run);

// Coalesced runs: the wave tile of `dims` (`waveTile`, in the order of `dims`, the last
// contiguous in memory) walked row-major in runs of `run` elements along the last dim,
// consecutive lanes on consecutive runs, then registers (steps); waves offset by their
// tile along the dims they split. `run` must divide the last dim's wave tile.
LayoutAttr blockedLayout(mlir::MLIRContext* ctx, llvm::ArrayRef<llvm::StringRef> dims,
                         llvm::ArrayRef<int64_t> waveTile, int64_t run, const WaveGrid& grid);

// Coalesced runs of a whole tile spread over every thread of the workgroup: the tile
// (`extent`, the last dim contiguous) walked row-major in runs of `run` elements, the
// workgroup's threads (lanes, then `waves` waves) on consecutive runs, then registers
// (steps). For a tile no dim of which divides among the waves, which blockedLayout would
// have every wave cover whole. Where the runs do not fill the last step, it wraps to the
// tile's start (those runs held twice). `run` must divide the last dim's extent.
LayoutAttr spreadLayout(mlir::MLIRContext* ctx, llvm::ArrayRef<int64_t> extent, int64_t run, int64_t waves,
                        int64_t lanes);

// Every thread holding position 0 of each of `rank` dims in its one register: a value of
// which the workgroup holds one element, the same in every thread.
LayoutAttr replicatedLayout(mlir::MLIRContext* ctx, size_t rank, const WaveGrid& grid);

// The largest run (a power of two, at most 16 bytes of `elementBits`) dividing `extent`.
int64_t coalescedRun(int64_t extent, unsigned elementBits);

// The layout of the value with `dim` (at index `index` of the value's dims) removed: its
// result dropped, and the register axes that only move along it dropped too. The
// remaining registers hold the same element wherever `dim` was their only difference.
LayoutAttr sliceLayout(LayoutAttr layout, unsigned index);

// The layout of a value whose dims are reordered: result i of the new layout is result
// `order[i]` of the old.
LayoutAttr permuteLayout(LayoutAttr layout, llvm::ArrayRef<unsigned> order);

// `layout` (over `layoutDims`) as a layout over `valueDims`: each dim's position where
// `layoutDims` has it, 0 for the others (dims of which a workgroup holds one element).
LayoutAttr placeLayout(LayoutAttr layout, llvm::ArrayRef<llvm::StringRef> layoutDims,
                       llvm::ArrayRef<llvm::StringRef> valueDims);

// One MMA operand or accumulator over a wave tile of rows x cols instruction tiles: the
// registers are [tile rows, tile cols, the instruction's elements], lanes the wave's.
// `waveRowAxis`/`waveColAxis` are the wave axes that split rows and columns (-1: none).
LayoutAttr mmaLayout(mlir::MLIRContext* ctx, const MMAOperandLayout& operand, int64_t lanes, int64_t tileRows,
                     int64_t tileCols, llvm::ArrayRef<int64_t> waves, int waveRowAxis, int waveColAxis);

// Hopper wgmma (m64nNk16) registers over warpgroups: waves 4g .. 4g+3 (flat wave index
// w = sum of the axes' digits times their strides) form warpgroup g, warp q = w mod 4 of
// it. Registers are [tile rows, tile cols, the fragment's elements]; tile (tr, tc) of
// warpgroup g starts at (g * groupRows + tr * rowStep, g * groupCols + tc * colStep), and
// with `warpRows` warp q's fragment 16 q rows further (the accumulator's and A's rows:
// each warp holds 16 rows of every 64-row strip; B's columns are every warp's).
struct WarpgroupPlacement {
  int64_t tileRows = 1, rowStep = 0, tileCols = 1, colStep = 0;
  bool warpRows = true;
  int64_t groupRows = 0, groupCols = 0;
};
LayoutAttr warpgroupLayout(mlir::MLIRContext* ctx, const MMAOperandLayout& fragment, int64_t lanes,
                           llvm::ArrayRef<int64_t> waves, const WarpgroupPlacement& placement);

// AMD MFMA accumulators on waves of 64: 16x16x16 (4 rows per lane, lanes by 16 columns)
// and 32x32x8 (16 elements per lane in 4 groups of 4 rows).
LayoutAttr mfmaAccumulatorLayout(mlir::MLIRContext* ctx, int64_t m);

}  // namespace wave::jit

#endif
