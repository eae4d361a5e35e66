// A shuffle along K of an [M, N] value. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);

#ifdef WAVE_EXPECT_OK
constexpr auto Dim = N;
#else
constexpr auto Dim = K;
#endif

void body(Register<dims<M, N>, f32> x) { (void)shuffle<Dim>(x, 1); }
