// A broadcast whose target drops one of the value's dims. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);

#ifdef WAVE_EXPECT_OK
using Target = dims<M, K>;
#else
using Target = dims<N, K>;
#endif

void body(Register<dims<M>, f32> x) { (void)broadcast<Target>(x); }
