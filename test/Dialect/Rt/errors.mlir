// RUN: plx-opt %s -split-input-file -verify-diagnostics
// One case per verifier rule of the rt dialect.

//===----------------------------------------------------------------------===//
// rt.program
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'rt.program' op rank must be non-negative, got -1}}
rt.program @rank_m1 rank -1 {
}

//===----------------------------------------------------------------------===//
// rt.compute
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'rt.compute' op expects parent op 'rt.program'}}
rt.compute fwd layers [0, 16) stage 0 seqs [0] time 0.1

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op first layer must be non-negative, got -4}}
  rt.compute fwd layers [-4, 16) stage 0 seqs [0] time 0.1
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op layer range [8, 8) is empty}}
  rt.compute bwd layers [8, 8) stage 0 seqs [0] time 0.1
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op layer range [9, 3) is empty}}
  rt.compute bwd layers [9, 3) stage 0 seqs [0] time 0.1
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op stage must be non-negative, got -1}}
  rt.compute fwd layers [0, 16) stage -1 seqs [0] time 0.1
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op processes no sequence; list at least one}}
  rt.compute fwd layers [0, 16) stage 0 seqs [] time 0.1
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op sequence id must be non-negative, got -7}}
  rt.compute fwd layers [0, 16) stage 0 seqs [-7] time 0.1
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op sequence 3 is listed twice}}
  rt.compute recompute layers [0, 4) stage 0 seqs [3, 2, 3] time 0.1
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op time must be a finite, non-negative number of seconds, got -0.25}}
  rt.compute fwd layers [0, 16) stage 0 seqs [0] time -0.25
}

// -----

// +inf is not a time either (0x7FF0000000000000 is the f64 infinity).
rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op time must be a finite, non-negative number of seconds, got inf}}
  rt.compute fwd layers [0, 16) stage 0 seqs [0] time 0x7FF0000000000000
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{expected fwd, bwd or recompute, got 'forward'}}
  rt.compute forward layers [0, 16) stage 0 seqs [0] time 0.1
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'rt.all_reduce' op expects parent op 'rt.program'}}
rt.all_reduce group dp @"dp" bytes 64

// -----

// expected-error @+1 {{'rt.group' op communicator name must not be empty}}
rt.group @"" dp [0, 1]

// -----

// expected-error @+1 {{'rt.group' op communicator group is empty}}
rt.group @"dp" dp []

// -----

// expected-error @+1 {{'rt.group' op group rank must be non-negative, got -2}}
rt.group @"sp" sp [0, -2]

// -----

// expected-error @+1 {{'rt.group' op rank 2 appears twice in the group}}
rt.group @"dp" dp [0, 2, 1, 2]

// -----

rt.group @"sp" sp [0, 1, 2]
rt.program @rank_3 rank 3 {
  // expected-error @+1 {{'rt.all_to_all' op group @"sp" [0, 1, 2] does not include the program's rank 3}}
  rt.all_to_all group sp @"sp" bytes 96
}

// -----

rt.group @"dp" dp [0, 1]
rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.all_gather' op bytes must be non-negative, got -64}}
  rt.all_gather group dp @"dp" bytes -64
}

// -----

rt.group @"sp" sp [0, 1, 2]
rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.all_to_all' op bytes (1000) must be a multiple of the group size (3)}}
  rt.all_to_all group sp @"sp" bytes 1000
}

// -----

rt.group @"dp" dp [0, 1, 2, 3]
rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.reduce_scatter' op bytes (10) must be a multiple of the group size (4)}}
  rt.reduce_scatter group dp @"dp" bytes 10
}

// -----

// All-reduce and all-gather keep whole buffers: any size is fine, so only
// the op that cuts the buffer complains.
rt.group @"dp" dp [0, 1, 2]
rt.program @rank_0 rank 0 {
  rt.all_reduce group dp @"dp" bytes 10
  rt.all_gather group dp @"dp" bytes 10
  // expected-error @+1 {{'rt.all_to_all' op bytes (10) must be a multiple of the group size (3)}}
  rt.all_to_all group dp @"dp" bytes 10
}

// -----

// A collective names an rt.group of the module; the group holds its ranks.
rt.group @"dp:0-1" dp [0, 1]
rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.all_reduce' op names communicator @"zero:0-1", which no rt.group of the module declares}}
  rt.all_reduce group zero @"zero:0-1" bytes 64
}

// -----

// The op's kind is the group's.
rt.group @"dp:0-1" dp [0, 1]
rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.reduce_scatter' op uses communicator @"dp:0-1" as zero, but its rt.group is of kind dp}}
  rt.reduce_scatter group zero @"dp:0-1" bytes 64
}

// -----

// A Ulysses compute op names an sp group of at least two ranks, its own
// among them.
rt.group @"zero:0-1" zero [0, 1]
rt.program @rank_1 rank 1 {
  // expected-error @+1 {{'rt.compute' op uses communicator @"zero:0-1" as sp, but its rt.group is of kind zero}}
  rt.compute fwd layers [0, 1) stage 0 seqs [0] time 0.1 ulysses @"zero:0-1"
}

// -----

rt.group @"sp:0-1" sp [0, 1]
rt.program @rank_2 rank 2 {
  // expected-error @+1 {{'rt.compute' op group @"sp:0-1" [0, 1] does not include the program's rank 2}}
  rt.compute fwd layers [0, 1) stage 0 seqs [0] time 0.1 ulysses @"sp:0-1"
}

// -----

rt.group @"sp:1" sp [1]
rt.program @rank_1 rank 1 {
  // expected-error @+1 {{'rt.compute' op Ulysses group @"sp:1" [1] needs at least two ranks}}
  rt.compute fwd layers [0, 1) stage 0 seqs [0] time 0.1 ulysses @"sp:1"
}

// -----

// rt.group is module-level, and a name is declared once.
rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.group' op expects parent op 'builtin.module'}}
  rt.group @"dp:0-1" dp [0, 1]
}

// -----

// expected-note @+1 {{see existing symbol definition here}}
rt.group @"dp:0-1" dp [0, 1]
// expected-error @+1 {{redefinition of symbol named 'dp:0-1'}}
rt.group @"dp:0-1" dp [0, 1, 2]

//===----------------------------------------------------------------------===//
// rt.send / rt.recv
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'rt.send' op expects parent op 'rt.program'}}
rt.send to 1 bytes 4096 tag 0

// -----

// expected-error @+1 {{'rt.recv' op expects parent op 'rt.program'}}
rt.recv from 0 bytes 4096 tag 0

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.send' op peer rank must be non-negative, got -1}}
  rt.send to -1 bytes 4096 tag 0
}

// -----

rt.program @rank_1 rank 1 {
  // expected-error @+1 {{'rt.send' op peer 1 is the program's own rank; a rank cannot send to itself}}
  rt.send to 1 bytes 4096 tag 0
}

// -----

rt.program @rank_1 rank 1 {
  // expected-error @+1 {{'rt.recv' op peer 1 is the program's own rank; a rank cannot receive from itself}}
  rt.recv from 1 bytes 4096 tag 0
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.recv' op bytes must be non-negative, got -4096}}
  rt.recv from 1 bytes -4096 tag 0
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.send' op tag must be non-negative, got -3}}
  rt.send to 1 bytes 4096 tag -3
}

// -----

// expected-error @+1 {{'rt.program' op resident memory must be non-negative, got -1}}
rt.program @rank_0 rank 0 resident -1 {
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op flops must be finite and non-negative, got -5.0}}
  rt.compute fwd layers [0, 1) stage 0 seqs [0] time 1.0 flops -5.0
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op lists 1 slice indices for 2 sequences; give one per sequence}}
  rt.compute fwd layers [0, 1) stage 0 seqs [0, 1] time 1.0 slices [0]
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.compute' op slice index must be non-negative, got -2}}
  rt.compute fwd layers [0, 1) stage 0 seqs [0] time 1.0 slices [-2]
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{'rt.wait' op pending must be non-negative, got -1}}
  rt.wait pending -1
}

// -----

rt.group @"ring:0-1" dp [0, 1]
rt.program @rank_0 rank 0 {
  // A communicator's kind is one of sp, tp, cp, zero and dp; a name is not
  // read for it.
  // expected-error @+1 {{expected sp, tp, cp, zero or dp as the communicator's kind, got 'ring'}}
  rt.all_reduce group ring @"ring:0-1" bytes 64
}

// -----

rt.program @rank_0 rank 0 {
  // expected-error @+1 {{expected the communicator's kind (sp, tp, cp, zero or dp) after 'group'}}
  rt.all_reduce group "dp:0-1" [0, 1] bytes 64
}
