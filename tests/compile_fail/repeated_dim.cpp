// A register tensor that names one dim twice. Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);

#ifdef WAVE_EXPECT_OK
using Shape = dims<M, N>;
#else
using Shape = dims<M, M>;
#endif

void body(Register<Shape, f32> x) { (void)x; }
