// Collectives over the ranks of a node, written as ordinary kernels (docs/distributed.md).
// Their inputs live in symmetric buffers (runtime::SymmetricBuffer): one tensor
// [RANKS, SLOT] whose row r is rank r's slot, so reading a peer's data is reading a row.
// Each rank's kernel runs on its own GPU; the one-shot all-reduce reads every peer's
// slot, the reduce-scatter only its DeviceConstraint's slice of each.
//
// all_reduce, reduce_scatter and all_gather leave the ranks' order to the host (every
// input written before any rank's kernel starts, no input rewritten before every rank's
// kernel has ended). all_reduce_one_shot and all_reduce_two_shot order themselves: each
// rank's blocks meet their peers' blocks through flags (signal, wait_and_take) before
// reading a peer's slot and again before ending, so a rank may launch one whenever its
// own input is written, back to back, with no host synchronization between ranks.
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
  const Constraints constraints{WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(N, BLOCK_N / 4),
                                DeviceConstraint(N, N_RANK), HardwareConstraint{}};
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

// --- all-reduce in one kernel that orders itself ----------------------------------------
//
// Each rank runs W blocks (workgroups); block w meets block w of every other rank: it
// signals its peers' flags, then waits for theirs, before reading their slots (their
// inputs are written) and again after its last write (their slots are read, and its
// writes into theirs have landed). Flags are i32 in a symmetric buffer [RANKS, FLAGS],
// zero when allocated, FLAGS >= 2 W RANKS: rank r's slot holds, per meeting k (0 before,
// 1 after) and peer p, W flags. wait_and_take puts each back to 0, so the next launch
// finds them ready.
//
// The blocks take tiles of TILE_E elements in turn (block w the tiles w, w + W, w + 2 W,
// ...; E = TILE_E x the most tiles a block takes): at any time they work on one window of
// W TILE_E elements. (Blocks walking contiguous ranges each, as they first did, ran at a
// third of the rate once those ranges were 128 KiB apart: bench/RESULTS.md, run 219.)
//
// Every rank's W blocks run at once (the blocks wait for each other): W RANKS workgroups
// must fit on a GPU at once when ranks are emulated on one.

WAVE_SYMBOL(W);       // blocks per rank
WAVE_SYMBOL(E);       // elements per block: TILE_E x ceil(length / (W TILE_E))
WAVE_SYMBOL(TILE_E);  // elements per loop trip of a block
WAVE_SYMBOL(FLAGS);   // elements of a rank's flag slot: at least 2 W RANKS

inline Constraints blocks() {
  return Constraints{WorkgroupConstraint(W, 1, 0), TilingConstraint(E, TILE_E), WaveConstraint(E, TILE_E / 4),
                     HardwareConstraint{}};
}

// Block w's meeting `k` with its peers: each peer's flag (k, RANK, w) set, then this rank's
// flags (k, p, w) waited for and taken back to 0.
template <int Meeting>
void meet_peers(const Memory<dims<RANKS, FLAGS>, i32>& flags) {
  constexpr auto p = iterator(0), w = iterator(1);
  const IndexMapping<dims<RANKS, W>> to_peers{.inputs = {{RANKS, p}, {W, w}},
                                              .outputs = {{RANKS, p}, {FLAGS, (Meeting * RANKS + RANK) * W + w}}};
  const IndexMapping<dims<RANKS, W>> from_peers{.inputs = {{RANKS, RANK}, {FLAGS, (Meeting * RANKS + p) * W + w}},
                                                .outputs = {{RANKS, p}, {W, w}}};
  signal(1, flags, to_peers);
  wait_and_take(flags, 1, from_peers);
}

// Element e of block w (e in [0, E)) is element `start` + tile(e, w) TILE_E + e mod TILE_E
// of the part the blocks share, tile(e, w) = w + W (e / TILE_E).
inline auto interleaved(auto start, auto w, auto e) { return start + e % TILE_E + TILE_E * (w + W * (e / TILE_E)); }

// The elements of block w's E that lie in a part of `length` elements: every tile it takes
// before the part's last whole one, and the partial one if that is block w's.
inline Register<dims<W>, i32> block_end(auto length) {
  return apply_expr(self_index<W, i32>(), [length](auto w) {
    return TILE_E * ((length / TILE_E - w + W - 1) / W) + length % TILE_E * ((W - (length / TILE_E - w) % W) / W);
  });
}

// One-shot: out[n] = sum over ranks r of slots[r, n], each rank reading every peer's slot
// (the data crosses the links once; best for small sizes). E = TILE_E ceil(N / (W TILE_E)).
template <class T>
auto all_reduce_one_shot() {
  return kernel("all_reduce_one_shot", blocks(),
                [](Memory<dims<RANKS, SLOT>, T> slots, Memory<dims<RANKS, FLAGS>, i32> flags, Memory<dims<N>, T> out) {
                  constexpr auto r = iterator(0), w = iterator(1), e = iterator(2);
                  const IndexMapping<dims<RANKS, W, E>> block_of_every_rank{
                      .inputs = {{RANKS, r}, {SLOT, interleaved(0, w, e)}}, .outputs = {{RANKS, r}, {W, w}, {E, e}}};
                  constexpr auto ow = iterator(0), oe = iterator(1);
                  const IndexMapping<dims<W, E>> to_out{.inputs = {{W, ow}, {E, oe}},
                                                        .outputs = {{N, interleaved(0, ow, oe)}}};
                  set_symbol<E>(block_end(N));
                  meet_peers<0>(flags);
                  iterate<E>(std::tuple{}, [&]() {
                    write(cast<T>(sum<RANKS>(cast<f32>(read(slots, block_of_every_rank)))), out, to_out);
                    return std::tuple{};
                  });
                  meet_peers<1>(flags);
                });
}

// Two-shot: rank r sums its part of N (N_RANK elements from r N_RANK; the last part ends
// at N) over every rank's slot and writes the sums into every rank's `sums` slot at the
// same place: each rank ends with all N sums in its slot of `sums`, a symmetric buffer
// [RANKS, SLOT]. Into each rank come 2 (RANKS - 1) / RANKS of N (its peers' parts, then
// their sums), where one-shot pulls (RANKS - 1) N: the same at two ranks, half at four.
// E = TILE_E ceil(N_RANK / (W TILE_E)).
template <class T>
auto all_reduce_two_shot() {
  return kernel("all_reduce_two_shot", blocks(),
                [](Memory<dims<RANKS, SLOT>, T> slots, Memory<dims<RANKS, FLAGS>, i32> flags,
                   Memory<dims<RANKS, SLOT>, T> sums) {
                  constexpr auto r = iterator(0), w = iterator(1), e = iterator(2);
                  const IndexMapping<dims<RANKS, W, E>> part{
                      .inputs = {{RANKS, r}, {SLOT, interleaved(RANK * N_RANK, w, e)}},
                      .outputs = {{RANKS, r}, {W, w}, {E, e}}};
                  const IndexMapping<dims<RANKS, W, E>> to_every_rank{
                      .inputs = {{RANKS, r}, {W, w}, {E, e}},
                      .outputs = {{RANKS, r}, {SLOT, interleaved(RANK * N_RANK, w, e)}}};
                  // (A part past N ends at 0: block_end of a length of 0 or less is at most 0.)
                  set_symbol<E>(minimum(block_end(N_RANK), block_end(N - RANK * N_RANK)));
                  meet_peers<0>(flags);
                  iterate<E>(std::tuple{}, [&]() {
                    auto part_sums = cast<T>(sum<RANKS>(cast<f32>(read(slots, part))));
                    write(broadcast<dims<RANKS, W, E>>(part_sums), sums, to_every_rank);
                    return std::tuple{};
                  });
                  meet_peers<1>(flags);
                });
}

}  // namespace examples::collectives
