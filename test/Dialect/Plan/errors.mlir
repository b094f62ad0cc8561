// RUN: plx-opt %s -split-input-file -verify-diagnostics
// One case per verifier rule of the plan dialect.

//===----------------------------------------------------------------------===//
// plan.sp_group
//===----------------------------------------------------------------------===//

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op SP degree must be at least 1, got 0}}
    plan.sp_group degree 0 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 2 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op model chunks per stage (vpp) must be at least 1, got 0}}
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 0 pp 2 vpp 0
  }
}

// -----

plan.step @s index 0 world 2 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op vpp 2 interleaves model chunks over pipeline stages, but the group has pp 1}}
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 0 vpp 2
  }
}

// -----

plan.step @s index 0 world 2 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op first rank must be non-negative, got -1}}
    plan.sp_group degree 2 ranks [-1, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 4 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op rank range [3, 2] is empty (last < first)}}
    plan.sp_group degree 1 ranks [3, 2] seqs [0] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 4 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op SP degree 4 does not match rank range [0, 2], which holds 3 ranks}}
    plan.sp_group degree 4 ranks [0, 2] seqs [0] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op sequence id must be non-negative, got -3}}
    plan.sp_group degree 1 ranks [0, 0] seqs [1, -3] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op sequence 5 is listed twice}}
    plan.sp_group degree 1 ranks [0, 0] seqs [5, 1, 5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op group time must be a finite, non-negative number of seconds, got -0.5}}
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time -0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op memory per rank must be non-negative, got -8 bytes}}
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem -8
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.sp_group' op expects parent op 'plan.microbatch'}}
  plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{expected floating point literal}}
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time "fast" mem 0
  }
}

// -----

// Times are float literals: `1.0`, not `1` (as everywhere in MLIR).
plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
    // expected-note @+1 {{add a trailing dot to make the literal a float}}
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1 mem 0
  }
}

//===----------------------------------------------------------------------===//
// plan.microbatch
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'plan.microbatch' op expects parent op 'plan.step'}}
plan.microbatch 0 time 1.0 {
  plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.microbatch' op micro-batch index must be non-negative, got -1}}
  plan.microbatch -1 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.microbatch' op micro-batch time must be a finite, non-negative number of seconds, got -1.0}}
  plan.microbatch 0 time -1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 0.0 mem 0
  }
}

// -----

// NaN is not a time either (0x7FF8000000000000 is the f64 quiet NaN).
plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.microbatch' op micro-batch time must be a finite, non-negative number of seconds, got nan}}
  plan.microbatch 0 time 0x7FF8000000000000 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 0.0 mem 0
  }
}

// -----

plan.step @s index 0 world 4 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 0
    // expected-error @+1 {{'plan.sp_group' op rank range [2, 5] lies outside the world [0, 4)}}
    plan.sp_group degree 4 ranks [2, 5] seqs [1] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 8 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 4 ranks [0, 3] seqs [0, 7] time 1.0 mem 0
    // expected-error @+1 {{'plan.sp_group' op sequence 7 is also assigned to group #0 of this micro-batch}}
    plan.sp_group degree 4 ranks [4, 7] seqs [2, 7] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 16 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 12 ranks [0, 11] seqs [0] time 1.0 mem 0
    // expected-error @+1 {{'plan.sp_group' op rank range [8, 15] overlaps group #0 [0, 11]}}
    plan.sp_group degree 8 ranks [8, 15] seqs [1] time 1.0 mem 0
  }
}

// -----

// The overlap is reported on the later group even when it starts lower.
plan.step @s index 0 world 8 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 4 ranks [4, 7] seqs [0] time 1.0 mem 0
    plan.sp_group degree 2 ranks [0, 1] seqs [1] time 1.0 mem 0
    // expected-error @+1 {{'plan.sp_group' op rank range [2, 5] overlaps group #0 [4, 7]}}
    plan.sp_group degree 4 ranks [2, 5] seqs [2] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 8 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.microbatch' op ranks [2, 3] belong to no SP group: the group degrees sum to 6 but the world has 8 ranks}}
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 0
    plan.sp_group degree 4 ranks [4, 7] seqs [1] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 8 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.microbatch' op ranks [4, 7] belong to no SP group: the group degrees sum to 4 but the world has 8 ranks}}
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 4 ranks [0, 3] seqs [0] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 2 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.microbatch' op ranks [0, 1] belong to no SP group: the group degrees sum to 0 but the world has 2 ranks}}
  plan.microbatch 0 time 1.0 {
  }
}

// -----

plan.step @s index 0 world 2 time 2.0 peak_mem 0 {
  // expected-error @+1 {{'plan.microbatch' op micro-batch time 1.0 s is less than the 1.2 s of its group #1}}
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
    plan.sp_group degree 1 ranks [1, 1] seqs [1] time 1.2 mem 0
  }
}

//===----------------------------------------------------------------------===//
// plan.step
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'plan.step' op step index must be non-negative, got -2}}
plan.step @s index -2 world 1 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op world size must be at least 1, got 0}}
plan.step @s index 0 world 0 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
  }
}

// -----

// expected-error @+1 {{'plan.step' op step time must be a finite, non-negative number of seconds, got -2.5}}
plan.step @s index 0 world 1 time -2.5 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op peak memory must be non-negative, got -1 bytes}}
plan.step @s index 0 world 1 time 1.0 peak_mem -1 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op holds no micro-batch; a step runs at least one}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
}

// -----

plan.step @s index 0 world 1 time 2.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
  // expected-error @+1 {{'plan.microbatch' op has index 2 but is micro-batch #1 of its step; indices count up from 0 in order}}
  plan.microbatch 2 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [1] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.microbatch' op has index 1 but is micro-batch #0 of its step; indices count up from 0 in order}}
  plan.microbatch 1 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 2 time 2.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
    plan.sp_group degree 1 ranks [1, 1] seqs [4] time 1.0 mem 0
  }
  plan.microbatch 1 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op sequence 4 is already processed by group #1 of micro-batch 0; a step processes each sequence once}}
    plan.sp_group degree 2 ranks [0, 1] seqs [2, 4] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op peak memory 1000 bytes is less than the 1024 bytes per rank of group #1 of micro-batch 0}}
plan.step @s index 0 world 2 time 1.0 peak_mem 1000 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 512
    plan.sp_group degree 1 ranks [1, 1] seqs [1] time 1.0 mem 1024
  }
}

// -----

// expected-error @+1 {{'plan.step' op step time 1.5 s is less than the sum of its micro-batch times, 2.0 s}}
plan.step @s index 0 world 1 time 1.5 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
  plan.microbatch 1 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [1] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 4 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op tensor-parallel degree must be at least 1, got 0}}
    plan.sp_group degree 4 ranks [0, 3] seqs [0] time 1.0 mem 0 tp 0
  }
}

// -----

plan.step @s index 0 world 4 time 1.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op degree 4 is not a multiple of tp * cp * pp (2 * 3 * 1); the Ulysses degree must be whole}}
    plan.sp_group degree 4 ranks [0, 3] seqs [0] time 1.0 mem 0 tp 2 cp 3
  }
}

// -----

// expected-error @+1 {{'plan.step' op sequence 1 has length 0; every sequence has at least 1 token}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [5, 0] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [5, 6] {
  plan.microbatch 0 time 1.0 {
    // expected-error @+1 {{'plan.sp_group' op sequence 2 has no length: the step lists 2 lengths (ids 0..1)}}
    plan.sp_group degree 1 ranks [0, 0] seqs [2] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op ZeRO stage must be 0, 1, 2 or 3, got 4}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 zero 4 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// A checkpointing the dialect does not know.
// expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'checkpoint' [none, selective, full, attention_mlp]}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 checkpoint most {
}

// -----

//===----------------------------------------------------------------------===//
// alternative plans (plan.step role, plan.unplanned)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'plan.step' op an alternative plan carries both `role` and `layout`, got only `role`}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 job @j role candidate {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op is an alternative plan (`role`) but names no `job`}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 role baseline layout [1, 1, 1, 1] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op a 5th layout degree (vpp) is at least 2, with pp at least 2; got pp 1, vpp 2}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 job @j lengths [1] role baseline layout [1, 1, 1, 1, 2] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op layout lists [sp, tp, cp, pp] and, when interleaved, vpp: 4 or 5 degrees, got 3}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 job @j lengths [1] role baseline layout [1, 1, 1] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op layout degrees are at least 1, got 0}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 job @j lengths [1] role baseline layout [1, 0, 1, 1] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op runs as `replicas` data-parallel copies, at least 2 when given, got 1}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 replicas 1 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op solver time must be a finite, non-negative number of seconds, got -1}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 job @j lengths [1] role candidate layout [1, 1, 1, 1] solver_time -1.0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op is an alternative plan (`role`) but lists no `lengths`; the judge checks it plans the step's batch}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 job @j role baseline layout [1, 1, 1, 1] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// A role the dialect does not know.
// expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'role' [candidate, baseline]}}
plan.unplanned @u index 0 job @j strategy "x" role finalist reason "r"

// -----

// expected-error @+1 {{'plan.unplanned' op step index must be non-negative, got -2}}
plan.unplanned @u index -2 job @j strategy "x" role baseline reason "r"

// -----

// expected-error @+1 {{'plan.unplanned' op says why its plan could not be made; `reason` is empty}}
plan.unplanned @u index 0 job @j strategy "x" role baseline reason ""

// -----

// With `lengths`, every sequence of the batch is in a group.
// expected-error @+1 {{'plan.step' op sequence 1 of the step's 3 lengths is in no group; a step processes every sequence of its batch}}
plan.step @s index 0 world 2 time 1.0 peak_mem 10 lengths [5, 6, 7] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 2 ranks [0, 1] seqs [0, 2] time 1.0 mem 10
  }
}
