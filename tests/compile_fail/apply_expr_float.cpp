// apply_expr (a symbolic function of integer positions) on a float tensor. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);

#ifdef WAVE_EXPECT_OK
using T = i64;
#else
using T = f32;
#endif

void body(Register<dims<M>, T> x) { (void)apply_expr(x, [](auto m) { return m < M; }); }
