// RUN: plx-opt %s -split-input-file -plx-verify-rt -verify-diagnostics

// expected-note @below {{the other program of rank 0 is here}}
rt.program @a rank 0 {
  rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
}
// expected-error @below {{'rt.program' op rank 0 has two programs}}
rt.program @b rank 0 {
  rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
}

// -----

rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
}
// expected-error @below {{'rt.program' op ranks must number 0..N-1 without gaps: rank 1 has no program}}
rt.program @rank_2 rank 2 {
  rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
}

// -----

// A send without its recv.
// expected-error @below {{violates the plan contract}}
rt.program @rank_0 rank 0 {
  rt.send to 1 bytes 64 tag 0
}
rt.program @rank_1 rank 1 {
  rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
}

// -----

// Both ranks receive first: neither ever sends.
// expected-error @below {{violates the plan contract (deadlock)}}
rt.program @rank_0 rank 0 {
  rt.recv from 1 bytes 64 tag 0
  rt.send to 1 bytes 64 tag 1
}
// expected-note @below {{rank 1 is involved}}
rt.program @rank_1 rank 1 {
  rt.recv from 0 bytes 64 tag 1
  rt.send to 0 bytes 64 tag 0
}

// -----

// Members disagree on a collective's size.
rt.group @"dp" dp [0, 1]
// expected-error @below {{violates the plan contract}}
rt.program @rank_0 rank 0 {
  rt.all_reduce group dp @"dp" bytes 1024
}
// expected-note @below {{rank 1 is involved}}
rt.program @rank_1 rank 1 {
  rt.all_reduce group dp @"dp" bytes 2048
}

// -----

// A send and its recv disagree on the size.
// expected-error @below {{violates the plan contract}}
rt.program @rank_0 rank 0 {
  rt.send to 1 bytes 64 tag 0
}
// expected-note @below {{rank 1 is involved}}
rt.program @rank_1 rank 1 {
  rt.recv from 0 bytes 128 tag 0
}
