// Collectives over the ranks of a node, written as ordinary kernels (docs/distributed.md).
// Their inputs live in symmetric buffers (runtime::SymmetricBuffer): one tensor
// [RANKS, SLOT] whose row r is rank r's slot, so reading a peer's data is reading a row.
// Each rank's kernel runs on its own GPU; the one-shot all-reduce reads every peer's
// slot, the reduce-scatter only its DeviceConstraint's slice of each.
#pragma once

#include <wave/wave.hpp>

namespace examples::collectives {
using namespace wave;

WAVE_SYMBOL(RANKS);    // the rank count: the symmetric tensors' outermost dim
WAVE_SYMBOL(SLOT);     // elements of a rank's slot (SymmetricBuffer::slot_bytes() / element size)
WAVE_SYMBOL(N);        // elements each rank contributes
WAVE_SYMBOL(N_RANK);   // N / RANKS: a rank's share of the result
WAVE_SYMBOL(BLOCK_N);  // elements per workgroup

inline constexpr auto i = iterator(0), j = iterator(1);

// Rank slots [RANKS, SLOT] read as [RANKS, N]: element n of every rank's slot.
inline const IndexMapping<dims<RANKS, N>> kEveryRank{.inputs = {{RANKS, i}, {SLOT, j}},
                                                     .outputs = {{RANKS, i}, {N, j}}};

inline Constraints elementwise(const auto& dim) {
  return Constraints{WorkgroupConstraint(dim, BLOCK_N, 0), WaveConstraint(dim, BLOCK_N / 4), HardwareConstraint{}};
}

// out[n] = sum over ranks r of slots[r, n], accumulated in f32: every rank computes the
// whole sum from its peers' slots (one-shot: one kernel, the data crosses the links once).
template <class T>
auto all_reduce() {
  return kernel("all_reduce", elementwise(N), [](Memory<dims<RANKS, SLOT>, T> slots, Memory<dims<N>, T> out) {
    write(cast<T>(sum<RANKS>(cast<f32>(read(slots, kEveryRank)))), out);
  });
}

// out[n'] = sum over ranks of slots[r, RANK * N_RANK + n']: rank RANK reduces its slice of
// N (the DeviceConstraint's), into an output of N_RANK elements.
template <class T>
auto reduce_scatter() {
  Constraints constraints = elementwise(N);
  constraints += DeviceConstraint(N, N_RANK);
  return kernel("reduce_scatter", constraints, [](Memory<dims<RANKS, SLOT>, T> slots, Memory<dims<N_RANK>, T> out) {
    const IndexMapping<dims<N>> mine{.inputs = {{N, i}}, .outputs = {{N_RANK, i - RANK * N_RANK}}};
    write(cast<T>(sum<RANKS>(cast<f32>(read(slots, kEveryRank)))), out, mine);
  });
}

// out[r, n] = slots[r, n] for n < N_RANK: every rank gathers every rank's share (pulled
// from the peers' slots) into [RANKS, N_RANK], which is N elements in rank order.
template <class T>
auto all_gather() {
  return kernel("all_gather", elementwise(N_RANK),
                [](Memory<dims<RANKS, SLOT>, T> slots, Memory<dims<RANKS, N_RANK>, T> out) {
                  const IndexMapping<dims<RANKS, N_RANK>> shares{.inputs = {{RANKS, i}, {SLOT, j}},
                                                                 .outputs = {{RANKS, i}, {N_RANK, j}}};
                  write(read(slots, shares), out);
                });
}

}  // namespace examples::collectives
