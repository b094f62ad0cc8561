// RUN: plx-opt %s | plx-opt | FileCheck %s
// RUN: plx-opt %s -mlir-print-op-generic | plx-opt | FileCheck %s
// RUN: plx-opt %s -emit-bytecode | plx-opt | FileCheck %s
// Round trip of steps planned by dynamic pipeline parallelism (plan.pipeline,
// plan.chunk, plan.remat) through the custom form, the generic form and
// bytecode; the checks see the custom form printed at the end.

// Four sequences on 4 stages of 8-way SP: sequence 3 is cut into three
// slices (the last shares a hybrid chunk with sequence 1) and runs backward
// in reverse; two stages recompute some layers.
// CHECK-LABEL: plan.step @dpp_step0 index 0 world 32 time 61.2 peak_mem 79000000000 job @dpp strategy "dpp" lengths [70000, 3000, 500, 90000] {
// CHECK-NEXT:    plan.pipeline 0 stages 4 sp 8 nsplit 3 time 40.1 bubble 0.12 backward [2, 1, 0, 3] {
// CHECK-NEXT:      plan.chunk 0 split slices [3:0-40000] time 0.91 mem 1000
// CHECK-NEXT:      plan.chunk 1 split slices [3:40000-60000] time 0.9 mem 1000
// CHECK-NEXT:      plan.chunk 2 hybrid slices [3:60000-90000, 1:0-3000] time 0.9 mem 1000
// CHECK-NEXT:      plan.chunk 3 packed slices [0:0-70000, 2:0-500] time 0.8 mem 1000
// CHECK-NEXT:      plan.remat stage 0 layers [3, 3, 2, 0]
// CHECK-NEXT:      plan.remat stage 1 layers [2, 2, 1, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
plan.step @dpp_step0 index 0 world 32 time 61.2 peak_mem 79000000000 job @dpp strategy "dpp" lengths [70000, 3000, 500, 90000] {
  plan.pipeline 0 stages 4 sp 8 nsplit 3 time 40.1 bubble 0.12 backward [2, 1, 0, 3] {
    plan.chunk 0 split slices [3:0-40000] time 0.91 mem 1000
    plan.chunk 1 split slices [3:40000-60000] time 0.9 mem 1000
    plan.chunk 2 hybrid slices [3:60000-90000, 1:0-3000] time 0.9 mem 1000
    plan.chunk 3 packed slices [0:0-70000, 2:0-500] time 0.8 mem 1000
    plan.remat stage 0 layers [3, 3, 2, 0]
    plan.remat stage 1 layers [2, 2, 1, 0]
  }
}

// Two pipelines one after another, the step's own bubble ratio, and remat
// ops in any stage order (their order is kept). The split sequence's tail
// sits alone in a split chunk.
// CHECK-LABEL: plan.step @two_pipelines index 7 world 8 time 3.5 peak_mem 64 strategy "dpp" lengths [100, 40, 30, 20] bubble 0.25 {
// CHECK-NEXT:    plan.pipeline 0 stages 2 sp 4 nsplit 2 time 2.0 bubble 0.3 backward [1, 0] {
// CHECK-NEXT:      plan.chunk 0 split slices [0:0-70] time 0.75 mem 48
// CHECK-NEXT:      plan.chunk 1 split slices [0:70-100] time 0.5 mem 32
// CHECK-NEXT:      plan.remat stage 1 layers [1, 0]
// CHECK-NEXT:      plan.remat stage 0 layers [2, 1]
// CHECK-NEXT:    }
// CHECK-NEXT:    plan.pipeline 1 stages 2 sp 4 nsplit 1 time 1.5 bubble 0.2 backward [0, 1] {
// CHECK-NEXT:      plan.chunk 0 packed slices [1:0-40] time 0.5 mem 16
// CHECK-NEXT:      plan.chunk 1 packed slices [3:0-20, 2:0-30] time 0.5 mem 16
// CHECK-NEXT:    }
// CHECK-NEXT:  }
plan.step @two_pipelines index 7 world 8 time 3.5 peak_mem 64 strategy "dpp" lengths [100, 40, 30, 20] bubble 0.25 {
  plan.pipeline 0 stages 2 sp 4 nsplit 2 time 2.0 bubble 0.3 backward [1, 0] {
    plan.chunk 0 split slices [0:0-70] time 0.75 mem 48
    plan.chunk 1 split slices [0:70-100] time 0.5 mem 32
    plan.remat stage 1 layers [1, 0]
    plan.remat stage 0 layers [2, 1]
  }
  plan.pipeline 1 stages 2 sp 4 nsplit 1 time 1.5 bubble 0.2 backward [0, 1] {
    plan.chunk 0 packed slices [1:0-40] time 0.5 mem 16
    plan.chunk 1 packed slices [3:0-20, 2:0-30] time 0.5 mem 16
  }
}

// Without `lengths` the step still checks that no token is in two chunks
// and that every sequence starts at token 0; sequence ids need not be
// dense. One stage, one rank.
// CHECK-LABEL: plan.step @no_lengths index 0 world 1 time 1.0 peak_mem 0 {
// CHECK-NEXT:    plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
// CHECK-NEXT:      plan.chunk 0 packed slices [12:0-5, 40:0-9] time 1.0 mem 0
// CHECK-NEXT:    }
// CHECK-NEXT:  }
plan.step @no_lengths index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [12:0-5, 40:0-9] time 1.0 mem 0
  }
}

// The step sums its pipeline times with a relative tolerance of 1e-9:
// 0.1 + 0.2 is 0.30000000000000004 in doubles, above the recorded 0.3.
// Extra attributes survive after the `attributes` keyword.
// CHECK-LABEL: plan.step @rounded_sum index 0 world 2 time 0.3 peak_mem 0 lengths [4, 4] {
// CHECK-NEXT:    plan.pipeline 0 stages 2 sp 1 nsplit 1 time 0.1 bubble 0.5 backward [0] attributes {plan.note = "first"} {
// CHECK-NEXT:      plan.chunk 0 packed slices [0:0-4] time 0.05 mem 0 {plan.note = "c"}
// CHECK-NEXT:    }
// CHECK-NEXT:    plan.pipeline 1 stages 2 sp 1 nsplit 1 time 0.2 bubble 0.5 backward [0] {
// CHECK-NEXT:      plan.chunk 0 packed slices [1:0-4] time 0.1 mem 0
// CHECK-NEXT:      plan.remat stage 1 layers [3] {plan.note = "r"}
// CHECK-NEXT:    }
// CHECK-NEXT:  }
plan.step @rounded_sum index 0 world 2 time 0.3 peak_mem 0 lengths [4, 4] {
  plan.pipeline 0 stages 2 sp 1 nsplit 1 time 0.1 bubble 0.5 backward [0] attributes {plan.note = "first"} {
    plan.chunk 0 packed slices [0:0-4] time 0.05 mem 0 {plan.note = "c"}
  }
  plan.pipeline 1 stages 2 sp 1 nsplit 1 time 0.2 bubble 0.5 backward [0] {
    plan.chunk 0 packed slices [1:0-4] time 0.1 mem 0
    plan.remat stage 1 layers [3] {plan.note = "r"}
  }
}
