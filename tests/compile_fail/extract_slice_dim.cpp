// extract_slice<N, M> of an [M, N] value: the slice's dim is one the value already has.
// Must not compile.
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(W);

#ifdef WAVE_EXPECT_OK
constexpr auto Slice = W;
#else
constexpr auto Slice = M;
#endif

void body(Register<dims<M, N>, f32> x) { (void)extract_slice<N, Slice>(x, 2); }
