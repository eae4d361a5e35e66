// exp2 of an integer tensor. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);

#ifdef WAVE_EXPECT_OK
using T = f32;
#else
using T = i32;
#endif

void body(Register<dims<M>, T> x) { (void)exp2(x); }
