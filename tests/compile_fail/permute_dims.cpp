// A permute whose target is not a reordering of the value's dims. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);

#ifdef WAVE_EXPECT_OK
using Target = dims<N, M>;
#else
using Target = dims<N, K>;
#endif

void body(Register<dims<M, N>, f32> x) { (void)permute<Target>(x); }
