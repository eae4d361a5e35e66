// The tracer: running a kernel body with a Tracer installed records every DSL call as a
// node of the trace graph. One tracer is active per thread at a time.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "wave/constraints.hpp"
#include "wave/error.hpp"
#include "wave/graph.hpp"

namespace wave::detail {

// A traced value: which trace made it, and its id there.
struct ValueRef {
  std::uint64_t trace = 0;
  graph::ValueId id = -1;
};

inline graph::SourceLoc to_loc(const std::source_location& where) {
  return {where.file_name(), where.line(), where.column()};
}

class Tracer {
 public:
  Tracer(std::string kernel, Constraints constraints, const std::source_location& where)
      : serial_(next_serial()), previous_(current_) {
    graph_.name = std::move(kernel);
    graph_.loc = to_loc(where);
    graph_.constraints = std::move(constraints);
    open_.push_back({next_block_++, {}});
    current_ = this;
  }
  ~Tracer() { current_ = previous_; }
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The tracer of the kernel being traced on this thread, or an error naming `op`.
  static Tracer& active(const char* op, const std::source_location& where) {
    if (!current_)
      throw Error("", op, where,
                  expected_found("a call inside a kernel body being traced",
                                 "a call outside of any kernel trace"));
    return *current_;
  }

  const std::string& kernel() const { return graph_.name; }
  const Constraints& constraints() const { return graph_.constraints; }

  [[noreturn]] void fail(const char* op, const std::source_location& where,
                         const std::string& message) const {
    throw Error(graph_.name, op, where, message);
  }

  ValueRef add_argument(graph::MemoryType type) {
    ValueRef ref = new_value();
    graph_.args.push_back({ref.id, std::move(type)});
    return ref;
  }

  // Checks that `v` may be used here: made by this trace, in a block still open.
  void check_use(const ValueRef& v, const char* op, const std::source_location& where) const {
    if (v.trace != serial_)
      fail(op, where, expected_found("a value of this kernel's trace",
                                     "a value from another kernel or an earlier trace"));
    const int block = value_block_[static_cast<std::size_t>(v.id)];
    const bool visible = std::any_of(open_.begin(), open_.end(),
                                     [&](const OpenBlock& b) { return b.serial == block; });
    if (!visible)
      fail(op, where, expected_found("a value defined in this scope or an enclosing one",
                                     "a value defined inside an iterate body that has ended; "
                                     "return it from the body instead"));
  }

  // Appends `node` to the innermost open block and gives its results ids.
  std::vector<ValueRef> append(graph::Node node) {
    std::vector<ValueRef> results;
    for (std::size_t i = 0; i < node.result_types.size(); ++i) {
      results.push_back(new_value());
      node.results.push_back(results.back().id);
    }
    open_.back().block.nodes.push_back(std::move(node));
    return results;
  }

  // Opens a nested block (an iterate or conditional body) with arguments of the given types.
  std::vector<ValueRef> open_block(const std::vector<graph::TensorType>& arg_types) {
    open_.push_back({next_block_++, {}});
    std::vector<ValueRef> args;
    for (const auto& t : arg_types) {
      args.push_back(new_value());
      open_.back().block.args.push_back(args.back().id);
      open_.back().block.arg_types.push_back(t);
    }
    return args;
  }

  // Whether ops go to the kernel body itself (no iterate or conditional body is open).
  bool at_top_level() const { return open_.size() == 1; }

  graph::Block close_block() {
    graph::Block b = std::move(open_.back().block);
    open_.pop_back();
    return b;
  }

  graph::KernelGraph finish() && {
    graph_.body = std::move(open_.front().block);
    return std::move(graph_);
  }

 private:
  struct OpenBlock {
    int serial;
    graph::Block block;
  };

  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> counter{1};
    return counter++;
  }

  ValueRef new_value() {
    value_block_.push_back(open_.back().serial);
    return {serial_, static_cast<graph::ValueId>(value_block_.size() - 1)};
  }

  static inline thread_local Tracer* current_ = nullptr;

  graph::KernelGraph graph_;
  std::uint64_t serial_;
  Tracer* previous_;
  std::vector<OpenBlock> open_;
  std::vector<int> value_block_;  // value id -> serial of the block that defines it
  int next_block_ = 0;
};

}  // namespace wave::detail
