// RUN: plx-opt %s -plx-verify-rt | FileCheck %s
// A valid pair of programs passes unchanged.

// CHECK-LABEL: rt.program @rank_0 rank 0
// CHECK: rt.all_reduce group dp @dp bytes 1024
rt.group @"dp" dp [0, 1]
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
  rt.send to 1 bytes 64 tag 0
  rt.all_reduce group dp @"dp" bytes 1024
}
rt.program @rank_1 rank 1 {
  rt.recv from 0 bytes 64 tag 0
  rt.all_reduce group dp @"dp" bytes 1024
}
