// RUN: plx-opt %s | plx-opt | FileCheck %s
// RUN: plx-opt %s -mlir-print-op-generic | plx-opt | FileCheck %s
// RUN: plx-opt %s -emit-bytecode | plx-opt | FileCheck %s
// Round trip of the rt dialect through its custom form, the generic form and
// bytecode; the checks see the custom form printed at the end.

// Communicators are declared once, before the programs, and named by the
// ops (kind, then ranks in ring order, as written).
// CHECK:       rt.group @mb0.sp0 sp [0, 1, 2, 3]
// CHECK-NEXT:  rt.group @dp dp [0, 1]
// CHECK-NEXT:  rt.group @mb1.sp2 sp [7, 5, 4, 6]

// Every op kind, in program order.
// CHECK-LABEL: rt.program @rank_0 rank 0 {
// CHECK-NEXT:    rt.compute fwd layers [0, 16) stage 0 seqs [0, 1] time 0.004
// CHECK-NEXT:    rt.all_to_all group sp @mb0.sp0 bytes 1048576
// CHECK-NEXT:    rt.compute fwd layers [16, 17) stage 0 seqs [2] time 0.001 slices [0] ulysses @mb0.sp0
// CHECK-NEXT:    rt.send to 1 bytes 4096 tag 3
// CHECK-NEXT:    rt.recv from 1 bytes 4096 tag 4
// CHECK-NEXT:    rt.send to 1 bytes 4096 tag 5 async carries fwd seqs [0] slices [0]
// CHECK-NEXT:    rt.compute recompute layers [0, 8) stage 0 seqs [1] time 0.002
// CHECK-NEXT:    rt.compute bwd layers [0, 16) stage 0 seqs [0, 1] time 0.008
// CHECK-NEXT:    rt.reduce_scatter group dp @dp bytes 2048
// CHECK-NEXT:    rt.all_gather group dp @dp bytes 1024
// CHECK-NEXT:    rt.all_reduce group dp @dp bytes 0
// CHECK-NEXT:  }
rt.group @"mb0.sp0" sp [0, 1, 2, 3]
rt.group @"dp" dp [0, 1]
rt.group @"mb1.sp2" sp [7, 5, 4, 6]
rt.group @"self" dp [2]
rt.group @"zero:8-9" zero [8, 9]
rt.group @"a" sp [0, 1]
rt.group @"b" tp [0, 1]
rt.group @"c" cp [0, 1]
rt.group @"d" zero [0, 1]
rt.group @"e" dp [0, 1]
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 16) stage 0 seqs [0, 1] time 0.004
  rt.all_to_all group sp @"mb0.sp0" bytes 1048576
  rt.compute fwd layers [16, 17) stage 0 seqs [2] time 0.001 slices [0] ulysses @"mb0.sp0"
  rt.send to 1 bytes 4096 tag 3
  rt.recv from 1 bytes 4096 tag 4
  rt.send to 1 bytes 4096 tag 5 async carries fwd seqs [0] slices [0]
  rt.compute recompute layers [0, 8) stage 0 seqs [1] time 0.002
  rt.compute bwd layers [0, 16) stage 0 seqs [0, 1] time 0.008
  rt.reduce_scatter group dp @"dp" bytes 2048
  rt.all_gather group dp @"dp" bytes 1024
  rt.all_reduce group dp @"dp" bytes 0
}

// Ring order is kept as written; the program's rank may sit anywhere in it.
// An empty program is legal (a rank with nothing to do this step).
// CHECK-LABEL: rt.program @rank_5 rank 5 {
// CHECK-NEXT:    rt.all_to_all group sp @mb1.sp2 bytes 4096
// CHECK-NEXT:    rt.compute fwd layers [16, 32) stage 1 seqs [12] time 1.0e-05
// CHECK-NEXT:  }
// CHECK-LABEL: rt.program @idle rank 9 {
// CHECK-NEXT:  }
rt.program @rank_5 rank 5 {
  rt.all_to_all group sp @"mb1.sp2" bytes 4096
  rt.compute fwd layers [16, 32) stage 1 seqs [12] time 0.00001
}
rt.program @idle rank 9 {
}

// A single-rank group and a zero-byte message are degenerate but legal.
// Extra attributes survive.
// CHECK-LABEL: rt.program @rank_2 rank 2 attributes {rt.note = "edge"} {
// CHECK-NEXT:    rt.all_reduce group dp @self bytes 8 {rt.note = "one rank"}
// CHECK-NEXT:    rt.send to 0 bytes 0 tag 0
// CHECK-NEXT:    rt.compute fwd layers [0, 1) stage 0 seqs [0] time 0.0 {rt.note = "tiny"}
rt.program @rank_2 rank 2 attributes {rt.note = "edge"} {
  rt.all_reduce group dp @"self" bytes 8 {rt.note = "one rank"}
  rt.send to 0 bytes 0 tag 0
  rt.compute fwd layers [0, 1) stage 0 seqs [0] time 0.0 {rt.note = "tiny"}
}

// The optional parts: resident memory, FLOPs, memory deltas and slice
// indices of compute ops, asynchronous collectives and waits.
// CHECK-LABEL: rt.program @rank_9 rank 9 resident 1073741824 {
// CHECK-NEXT:    rt.all_gather group zero @"zero:8-9" bytes 4096 async
// CHECK-NEXT:    rt.wait pending 0
// CHECK-NEXT:    rt.compute fwd layers [0, 4) stage 0 seqs [5, 6] time 0.01 flops 2.5e+12 mem 1048576 slices [0, 2]
// CHECK-NEXT:    rt.compute bwd layers [0, 4) stage 0 seqs [5] time 0.02 mem -1048576
// CHECK-NEXT:    rt.reduce_scatter group zero @"zero:8-9" bytes 8192 async
// CHECK-NEXT:    rt.wait pending 1
// CHECK-NEXT:  }
rt.program @rank_9 rank 9 resident 1073741824 {
  rt.all_gather group zero @"zero:8-9" bytes 4096 async
  rt.wait pending 0
  rt.compute fwd layers [0, 4) stage 0 seqs [5, 6] time 0.01 flops 2.5e12 mem 1048576 slices [0, 2]
  rt.compute bwd layers [0, 4) stage 0 seqs [5] time 0.02 mem -1048576
  rt.reduce_scatter group zero @"zero:8-9" bytes 8192 async
  rt.wait pending 1
}

// Every communicator kind prints as its keyword, whatever the name says.
// CHECK-LABEL: rt.program @kinds rank 0 {
// CHECK-NEXT:    rt.all_to_all group sp @a bytes 8
// CHECK-NEXT:    rt.all_reduce group tp @b bytes 8
// CHECK-NEXT:    rt.all_gather group cp @c bytes 8
// CHECK-NEXT:    rt.all_gather group zero @d bytes 8 layers [0, 1)
// CHECK-NEXT:    rt.reduce_scatter group dp @e bytes 8
rt.program @kinds rank 0 {
  rt.all_to_all group sp @"a" bytes 8
  rt.all_reduce group tp @"b" bytes 8
  rt.all_gather group cp @"c" bytes 8
  rt.all_gather group zero @"d" bytes 8 layers [0, 1)
  rt.reduce_scatter group dp @"e" bytes 8
}
