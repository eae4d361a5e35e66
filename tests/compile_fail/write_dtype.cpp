// An f32 value written to f16 memory without a cast. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);

#ifdef WAVE_EXPECT_OK
void body(Register<dims<M>, f32> x, Memory<dims<M>, f16> out) { write(cast<f16>(x), out); }
#else
void body(Register<dims<M>, f32> x, Memory<dims<M>, f16> out) { write(x, out); }
#endif
