// Adding [M, N] to [M, K]: neither dim set holds the other. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);

#ifdef WAVE_EXPECT_OK
using YDims = dims<M>;
#else
using YDims = dims<M, K>;
#endif

void body(Register<dims<M, N>, f32> x, Register<YDims, f32> y) { (void)(x + y); }
