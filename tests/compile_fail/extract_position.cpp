// extract<N> of an [M, N] value at positions over N (the dim it drops). Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);

#ifdef WAVE_EXPECT_OK
using At = Register<dims<M>, i32>;
#else
using At = Register<dims<N>, i32>;
#endif

void body(Register<dims<M, N>, f32> x, At at) { (void)extract<N>(x, at); }
