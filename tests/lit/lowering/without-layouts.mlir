// wave-lower-to-gpu needs the layouts of wave-assign-layouts; run alone, it says so.
// RUN: wave-opt %s --wave-lower-to-gpu --verify-diagnostics

func.func @copy(%x: !wave.memory<[N] of f32, global>, %y: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {N = 128 : i64}} {
  // expected-error @+1 {{'wave.read' op expected a layout on its result (from wave-assign-layouts), but found none}}
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}
