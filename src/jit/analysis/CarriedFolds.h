//===- CarriedFolds.h - how an iterate's carried values fold over its dim -*- C++ -*-===//
//
// A loop whose dim a WaveConstraint splits can let each wave fold its own part of every
// tile, apart from the others, and combine the waves' partials once after the loop, as a
// vectorizer splits a reduction over lanes. That needs every carried value to be a fold
// with a combination:
//   a running max   m' = reduce_max(x, init m)        (or maximum(m, reduce_max x))
//   a running sum   s' = reduce_sum(x, init s)        (or s + reduce_sum x, or an mma
//                                                      contracting the dim into s)
//   a rescaled sum  s' = reduce_sum(t, init s * f)    (or the same forms), where
//                   f = exp2(k (m - m')) for a running max m, and every term t is
//                   proportional to exp2(-k m') (exp2(k (x - m')), cast, permuted,
//                   scaled): the online softmax's sum and output.
// Partials combine as max_w m_w, sum_w s_w, and sum_w s_w exp2(k (m_w - m)) with m the
// combined max. Everything else the body computes from the carried values must be part
// of these folds.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_CARRIEDFOLDS_H
#define WAVE_JIT_ANALYSIS_CARRIEDFOLDS_H

#include "dialect/WaveDialect.h"

#include <string>

namespace wave::jit {

struct CarriedFold {
  dialect::FoldKind kind = dialect::FoldKind::max;
  int rescaledBy = -1;    // a rescaled sum: the index of the running max it follows
  double log2Scale = 1;   // k: the partials rescale by exp2(k (m_w - m))
};

// Per carried value of `loop`, its fold over the loop's dim; failure, with the reason in
// `why`, where some carried value is no fold above or the body uses one otherwise.
mlir::FailureOr<llvm::SmallVector<CarriedFold>> carriedFolds(dialect::IterateOp loop, std::string& why);

}  // namespace wave::jit

#endif
