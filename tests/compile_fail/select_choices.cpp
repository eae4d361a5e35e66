// select between values of different dims ([M, N] and [N]). Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);

#ifdef WAVE_EXPECT_OK
using Other = dims<M, N>;
#else
using Other = dims<N>;
#endif

void body(Register<dims<M>, i1> c, Register<dims<M, N>, f32> a, Register<Other, f32> b) { (void)select(c, a, b); }
