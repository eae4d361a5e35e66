// wave-lower-to-gpu consumes what wave-infer-index records; run alone, it says so.
// RUN: wave-opt %s --wave-lower-to-gpu --verify-diagnostics

// expected-error @+1 {{expected a wave.thread_layout attribute (from wave-infer-index), but found none}}
func.func @copy(%x: !wave.memory<[N] of f32, global>, %y: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.hardware_constraint<threads_per_wave = 32>], wave.hyperparameters = {N = 64 : i64}} {
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}
