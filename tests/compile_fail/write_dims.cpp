// Writing an [M, K] value to [M, N] memory. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);

#ifdef WAVE_EXPECT_OK
using VDims = dims<N, M>;
#else
using VDims = dims<M, K>;
#endif

void body(Register<VDims, f32> v, Memory<dims<M, N>, f32> out) { write(v, out); }
