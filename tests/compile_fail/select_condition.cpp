// select on an f32 condition instead of an i1 one. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);

#ifdef WAVE_EXPECT_OK
void body(Register<dims<M>, f32> c, Register<dims<M>, f32> a, Register<dims<M>, f32> b) { (void)select(cast<i1>(c), a, b); }
#else
void body(Register<dims<M>, f32> c, Register<dims<M>, f32> a, Register<dims<M>, f32> b) { (void)select(c, a, b); }
#endif
