// Ops that order or prioritize the workgroup's threads rather than compute.
//
//   write(partial, scratch, mapping);   // this thread's part of a workgroup's scratch rows
//   workgroup_barrier();                // every thread's writes land before any reads on
//   auto all = read(scratch, other);    // another thread's part
//   set_wave_prio(3);                   // AMD: this wave's instructions first on its SIMD
//
// workgroup_barrier(): every thread of the workgroup waits until all have reached it, and
// each thread's reads and writes of memory (global and shared) before it are seen by every
// thread of the workgroup after it. The compiler places the barriers its own shared tiles
// need; this one is for a kernel's own exchanges through memory. No read or write moves
// across it, so a loop holding one keeps its copies unpipelined. Call it where every
// thread of the workgroup arrives: in the kernel body or an iterate body.
//
// set_wave_prio(p): the issue priority of the calling wave from here on, 0 (the default)
// to 3, as AMD GPUs' s_setprio sets it: raising it around a wave's matrix instructions
// lets two waves sharing a SIMD take turns (a ping-pong schedule). NVIDIA GPUs have no such
// setting; there it compiles to nothing.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>

#include "wave/ops/emit.hpp"

namespace wave {

inline void workgroup_barrier(std::source_location where = std::source_location::current()) {
  detail::Tracer& tracer = detail::Tracer::active("workgroup_barrier", where);
  tracer.append(detail::make_node(tracer, graph::OpKind::WorkgroupBarrier, where, {}));
}

inline void set_wave_prio(std::int64_t priority, std::source_location where = std::source_location::current()) {
  detail::Tracer& tracer = detail::Tracer::active("set_wave_prio", where);
  if (priority < 0 || priority > 3)
    tracer.fail("set_wave_prio", where, expected_found("a priority from 0 to 3", std::to_string(priority)));
  graph::Node node = detail::make_node(tracer, graph::OpKind::SetWavePrio, where, {});
  node.limit = priority;
  tracer.append(std::move(node));
}

}  // namespace wave
