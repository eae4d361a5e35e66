// A wait on f32 flags (flags are i32 or i64). Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);

#ifdef WAVE_EXPECT_OK
void body(Memory<dims<M>, i32> ready) { wait_at_least(ready, 1); }
#else
void body(Memory<dims<M>, f32> ready) { wait_at_least(ready, 1); }
#endif
