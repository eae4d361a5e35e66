// An mma of an f16 A with a bf16 B. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);

#ifdef WAVE_EXPECT_OK
using BType = f16;
#else
using BType = bf16;
#endif

void body(Register<dims<M, K>, f16> a, Register<dims<N, K>, BType> b, Register<dims<M, N>, f32> acc) {
  (void)mma(a, b, acc);
}
