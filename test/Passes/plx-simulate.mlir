// RUN: plx-opt %s -plx-simulate='link-bandwidth=1e9 latency=0' | FileCheck %s
// RUN: plx-opt %s -plx-simulate='link-bandwidth=1e9 latency=0 trace=%t.json' > /dev/null
// RUN: FileCheck %s --check-prefix=TRACE < %t.json

// Two pipeline stages, one micro-batch: forward 1 s, backward 2 s, and
// 500 MB activations/gradients at 1 GB/s (0.5 s each way).
//   rank 0: fwd [0, 1], send [1, 1.5], (wait), recv [4.5, 5], bwd [5, 7]
//   rank 1: recv [1, 1.5], fwd [1.5, 2.5], bwd [2.5, 4.5], send [4.5, 5]
// Step 7 s; each rank computes 3 s and communicates 1 s, so it idles 3 s:
// the bubble is 3/7.

// CHECK: module attributes {plx.sim.bubble_fraction = 0.42857142857142855 : f64, plx.sim.flops = 0.000000e+00 : f64, plx.sim.step_time = 7.000000e+00 : f64}
// CHECK: rt.program @rank_0 rank 0 attributes {plx.sim.comm_time = 1.000000e+00 : f64, plx.sim.compute_time = 3.000000e+00 : f64, plx.sim.idle_time = 3.000000e+00 : f64, plx.sim.overlapped_comm_time = 0.000000e+00 : f64, plx.sim.peak_mem = 0 : i64}
// CHECK: rt.program @rank_1 rank 1 attributes {plx.sim.comm_time = 1.000000e+00 : f64, plx.sim.compute_time = 3.000000e+00 : f64, plx.sim.idle_time = 3.000000e+00 : f64, plx.sim.overlapped_comm_time = 0.000000e+00 : f64, plx.sim.peak_mem = 0 : i64}
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
  rt.send to 1 bytes 500000000 tag 0
  rt.recv from 1 bytes 500000000 tag 1
  rt.compute bwd layers [0, 2) stage 0 seqs [0] time 2.0
}
rt.program @rank_1 rank 1 {
  rt.recv from 0 bytes 500000000 tag 0
  rt.compute fwd layers [2, 4) stage 1 seqs [0] time 1.0
  rt.compute bwd layers [2, 4) stage 1 seqs [0] time 2.0
  rt.send to 0 bytes 500000000 tag 1
}

// TRACE: "traceEvents"
// TRACE-DAG: "name": "fwd layers 0-2"
// TRACE-DAG: "name": "bwd layers 2-4"
// TRACE-DAG: "name": "rank 1"
