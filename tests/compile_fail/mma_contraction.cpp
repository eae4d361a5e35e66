// mma of [M, K] by [N, K2]: no shared contraction dim. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);
WAVE_SYMBOL(K2);

#ifdef WAVE_EXPECT_OK
using BDims = dims<N, K>;
#else
using BDims = dims<N, K2>;
#endif

void body(Register<dims<M, K>, f16> a, Register<BDims, f16> b, Register<dims<M, N>, f32> c) {
  (void)mma(a, b, c);
}
