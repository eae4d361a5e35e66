// mma whose accumulator's N is not a dim of B. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(P);
WAVE_SYMBOL(K);

#ifdef WAVE_EXPECT_OK
using AccDims = dims<M, N>;
#else
using AccDims = dims<M, P>;
#endif

void body(Register<dims<M, K>, f16> a, Register<dims<K, N>, f16> b, Register<AccDims, f32> c) {
  (void)mma(a, b, c);
}
