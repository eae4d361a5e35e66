// An iterate carrying a Memory instead of a Register. Must not compile.
#include <tuple>
#include <wave/wave.hpp>
using namespace wave;
WAVE_SYMBOL(M);
WAVE_SYMBOL(K);

#ifdef WAVE_EXPECT_OK
void body(Register<dims<M>, f32> acc, Memory<dims<M>, f32>) {
  (void)iterate<K>(std::tuple{acc}, [](auto a) { return std::tuple{a}; });
}
#else
void body(Register<dims<M>, f32>, Memory<dims<M>, f32> m) {
  (void)iterate<K>(std::tuple{m}, [](auto a) { return std::tuple{a}; });
}
#endif
