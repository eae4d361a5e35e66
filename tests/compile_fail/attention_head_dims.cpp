// Attention scores of q [B, H, M, K1] by k [B, H, K2, D]: the head dims differ, so the
// scores' mma has no contraction dim. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(B);
WAVE_SYMBOL(H);
WAVE_SYMBOL(M);
WAVE_SYMBOL(K1);
WAVE_SYMBOL(K2);
WAVE_SYMBOL(D);

#ifdef WAVE_EXPECT_OK
using KDims = dims<B, H, K2, K1>;
#else
using KDims = dims<B, H, K2, D>;
#endif

void scores(Memory<dims<B, H, M, K1>, f16> q, Memory<KDims, f16> k) {
  Register<dims<B, H, K2, M>, f32> zero(0.0);
  (void)mma(read(k), read(q), zero);
}
