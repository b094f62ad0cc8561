// RUN: plx-opt %s -split-input-file -plx-verify-rt -verify-diagnostics | FileCheck %s
// A split sequence's slices go forward in order and backward in reverse:
// valid chunked schedules pass unchanged; each rule, broken once, is an
// error on the rt.compute at fault with a note on the op it conflicts with.

// Sequence 4 in three slices over two layer ranges, sequence 7 unsplit
// beside its slice 1; recompute before each backward.
// CHECK-LABEL: rt.program @rank_0 rank 0
// CHECK:      rt.compute fwd layers [0, 4) stage 0 seqs [4] time 1.0 slices [0]
// CHECK-NEXT: rt.compute fwd layers [4, 8) stage 0 seqs [4] time 1.0 slices [0]
// CHECK-NEXT: rt.compute fwd layers [0, 4) stage 0 seqs [4, 7] time 1.0 slices [1, 0]
// CHECK-NEXT: rt.compute fwd layers [4, 8) stage 0 seqs [4, 7] time 1.0 slices [1, 0]
// CHECK-NEXT: rt.compute fwd layers [0, 4) stage 0 seqs [4] time 1.0 slices [2]
// CHECK-NEXT: rt.compute fwd layers [4, 8) stage 0 seqs [4] time 1.0 slices [2]
// CHECK-NEXT: rt.compute recompute layers [4, 8) stage 0 seqs [4] time 0.5 slices [2]
// CHECK-NEXT: rt.compute bwd layers [4, 8) stage 0 seqs [4] time 2.0 slices [2]
// CHECK:      rt.compute bwd layers [0, 4) stage 0 seqs [4] time 2.0 slices [0]
// CHECK-NEXT: rt.all_reduce group dp @dp bytes 1024
rt.group @"dp" dp [0]
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 4) stage 0 seqs [4] time 1.0 slices [0]
  rt.compute fwd layers [4, 8) stage 0 seqs [4] time 1.0 slices [0]
  rt.compute fwd layers [0, 4) stage 0 seqs [4, 7] time 1.0 slices [1, 0]
  rt.compute fwd layers [4, 8) stage 0 seqs [4, 7] time 1.0 slices [1, 0]
  rt.compute fwd layers [0, 4) stage 0 seqs [4] time 1.0 slices [2]
  rt.compute fwd layers [4, 8) stage 0 seqs [4] time 1.0 slices [2]
  rt.compute recompute layers [4, 8) stage 0 seqs [4] time 0.5 slices [2]
  rt.compute bwd layers [4, 8) stage 0 seqs [4] time 2.0 slices [2]
  rt.compute recompute layers [0, 4) stage 0 seqs [4] time 0.5 slices [2]
  rt.compute bwd layers [0, 4) stage 0 seqs [4] time 2.0 slices [2]
  rt.compute recompute layers [4, 8) stage 0 seqs [4, 7] time 0.5 slices [1, 0]
  rt.compute bwd layers [4, 8) stage 0 seqs [4, 7] time 2.0 slices [1, 0]
  rt.compute recompute layers [0, 4) stage 0 seqs [4, 7] time 0.5 slices [1, 0]
  rt.compute bwd layers [0, 4) stage 0 seqs [4, 7] time 2.0 slices [1, 0]
  rt.compute recompute layers [4, 8) stage 0 seqs [4] time 0.5 slices [0]
  rt.compute bwd layers [4, 8) stage 0 seqs [4] time 2.0 slices [0]
  rt.compute recompute layers [0, 4) stage 0 seqs [4] time 0.5 slices [0]
  rt.compute bwd layers [0, 4) stage 0 seqs [4] time 2.0 slices [0]
  rt.all_reduce group dp @"dp" bytes 1024
}

// -----

// Two pipeline stages, each running its own layer range of the slices of
// sequence 0: the stages' orders are separate. Ops without slices (sequence
// 1, unsplit) take no part.
// CHECK-LABEL: rt.program @rank_0 rank 0
// CHECK:       rt.compute bwd layers [0, 4) stage 0 seqs [0] time 2.0 slices [0]
// CHECK-LABEL: rt.program @rank_1 rank 1
// CHECK:       rt.compute bwd layers [4, 8) stage 1 seqs [0] time 2.0 slices [0]
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 4) stage 0 seqs [1] time 1.0
  rt.compute fwd layers [0, 4) stage 0 seqs [0] time 1.0 slices [0]
  rt.send to 1 bytes 64 tag 0
  rt.compute fwd layers [0, 4) stage 0 seqs [0] time 1.0 slices [1]
  rt.send to 1 bytes 64 tag 1
  rt.recv from 1 bytes 64 tag 2
  rt.compute bwd layers [0, 4) stage 0 seqs [0] time 2.0 slices [1]
  rt.recv from 1 bytes 64 tag 3
  rt.compute bwd layers [0, 4) stage 0 seqs [0] time 2.0 slices [0]
  rt.compute bwd layers [0, 4) stage 0 seqs [1] time 2.0
}
rt.program @rank_1 rank 1 {
  rt.recv from 0 bytes 64 tag 0
  rt.compute fwd layers [4, 8) stage 1 seqs [0] time 1.0 slices [0]
  rt.recv from 0 bytes 64 tag 1
  rt.compute fwd layers [4, 8) stage 1 seqs [0] time 1.0 slices [1]
  rt.compute bwd layers [4, 8) stage 1 seqs [0] time 2.0 slices [1]
  rt.send to 0 bytes 64 tag 2
  rt.compute bwd layers [4, 8) stage 1 seqs [0] time 2.0 slices [0]
  rt.send to 0 bytes 64 tag 3
}

// -----

// Forward out of order, on rank 1.
rt.group @"dp" dp [0, 1]
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [0]
  rt.all_reduce group dp @"dp" bytes 1024
}
rt.program @rank_1 rank 1 {
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [0]
  // expected-note @below {{slice 2 of sequence 4 went forward here}}
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [2]
  // expected-error @below {{'rt.compute' op runs the forward of slice 1 of sequence 4 (layers [0, 8)) after slice 2; a sequence's slices go forward in order}}
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [1]
  rt.all_reduce group dp @"dp" bytes 1024
}

// -----

// Backward in increasing order.
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 8) stage 0 seqs [3, 4] time 1.0 slices [0, 0]
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [1]
  // expected-note @below {{slice 0 of sequence 4 went backward here}}
  rt.compute bwd layers [0, 8) stage 0 seqs [3, 4] time 2.0 slices [0, 0]
  // expected-error @below {{'rt.compute' op runs the backward of slice 1 of sequence 4 (layers [0, 8)) after slice 0; a sequence's slices go backward in reverse order}}
  rt.compute bwd layers [0, 8) stage 0 seqs [4] time 2.0 slices [1]
}

// -----

// Recompute in increasing order (the backward passes are in order).
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [0]
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [1]
  // expected-note @below {{slice 0 of sequence 4 was recomputed here}}
  rt.compute recompute layers [0, 8) stage 0 seqs [4] time 0.5 slices [0]
  rt.compute bwd layers [0, 8) stage 0 seqs [4] time 2.0 slices [1]
  // expected-error @below {{'rt.compute' op runs the recompute of slice 1 of sequence 4 (layers [0, 8)) after slice 0; a sequence's slices are recomputed in reverse order}}
  rt.compute recompute layers [0, 8) stage 0 seqs [4] time 0.5 slices [1]
  rt.compute bwd layers [0, 8) stage 0 seqs [4] time 2.0 slices [0]
}

// -----

// A slice's backward before its forward.
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [0]
  // expected-error @below {{'rt.compute' op runs the backward of slice 1 of sequence 4 (layers [0, 8)) before its forward; a slice goes backward after its forward}}
  rt.compute bwd layers [0, 8) stage 0 seqs [4] time 2.0 slices [1]
  // expected-note @below {{the forward of slice 1 of sequence 4 runs here}}
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [1]
  rt.compute bwd layers [0, 8) stage 0 seqs [4] time 2.0 slices [0]
}

// -----

// A slice's backward on a rank that runs the sequence forward, but never
// that slice.
rt.program @rank_0 rank 0 {
  // expected-note @below {{the first forward of sequence 4 (layers [0, 8)) on this rank}}
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [0]
  // expected-error @below {{'rt.compute' op runs the backward of slice 1 of sequence 4 (layers [0, 8)) but never its forward}}
  rt.compute bwd layers [0, 8) stage 0 seqs [4] time 2.0 slices [1]
  rt.compute bwd layers [0, 8) stage 0 seqs [4] time 2.0 slices [0]
}

// -----

// The slice order is checked before the programs are simulated: this rank's
// unmatched send is not reached.
rt.program @rank_0 rank 0 {
  // expected-note @below {{slice 0 of sequence 4 went forward here}}
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [0]
  // expected-error @below {{runs the forward of slice 0 of sequence 4 (layers [0, 8)) a second time}}
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [0]
  rt.send to 1 bytes 64 tag 0
}
rt.program @rank_1 rank 1 {
  rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0
}
