// RUN: plx-opt %s | plx-opt | FileCheck %s
// RUN: plx-opt %s -mlir-print-op-generic | plx-opt | FileCheck %s
// RUN: plx-opt %s -emit-bytecode | plx-opt | FileCheck %s
// Round trip of the plan dialect through its custom form, the generic form
// and bytecode; the checks see the custom form printed at the end.

// The smallest legal step: one rank, one micro-batch, one group.
// CHECK-LABEL: plan.step @single_rank index 0 world 1 time 0.5 peak_mem 1024 {
// CHECK-NEXT:    plan.microbatch 0 time 0.5 {
// CHECK-NEXT:      plan.sp_group degree 1 ranks [0, 0] seqs [0] time 0.5 mem 1024
// CHECK-NEXT:    }
// CHECK-NEXT:  }
plan.step @single_rank index 0 world 1 time 0.5 peak_mem 1024 {
  plan.microbatch 0 time 0.5 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 0.5 mem 1024
  }
}

// FlexSP-style step: micro-batches cut the world into groups of different
// degrees; a group may sit out a micro-batch with no sequence.
// CHECK-LABEL: plan.step @mixed_degrees index 3 world 8 time 2.5 peak_mem 3000000000 {
// CHECK-NEXT:    plan.microbatch 0 time 1.25 {
// CHECK-NEXT:      plan.sp_group degree 8 ranks [0, 7] seqs [3] time 1.25 mem 3000000000
// CHECK-NEXT:    }
// CHECK-NEXT:    plan.microbatch 1 time 1.25 {
// CHECK-NEXT:      plan.sp_group degree 4 ranks [0, 3] seqs [0, 5, 7] time 1.25 mem 2000000000
// CHECK-NEXT:      plan.sp_group degree 2 ranks [4, 5] seqs [1] time 1.0 mem 1500000000
// CHECK-NEXT:      plan.sp_group degree 1 ranks [6, 6] seqs [2, 4] time 0.75 mem 900000000
// CHECK-NEXT:      plan.sp_group degree 1 ranks [7, 7] seqs [] time 0.0 mem 0
// CHECK-NEXT:    }
// CHECK-NEXT:  }
plan.step @mixed_degrees index 3 world 8 time 2.5 peak_mem 3000000000 {
  plan.microbatch 0 time 1.25 {
    plan.sp_group degree 8 ranks [0, 7] seqs [3] time 1.25 mem 3000000000
  }
  plan.microbatch 1 time 1.25 {
    plan.sp_group degree 4 ranks [0, 3] seqs [0, 5, 7] time 1.25 mem 2000000000
    plan.sp_group degree 2 ranks [4, 5] seqs [1] time 1.0 mem 1500000000
    plan.sp_group degree 1 ranks [6, 6] seqs [2, 4] time 0.75 mem 900000000
    plan.sp_group degree 1 ranks [7, 7] seqs [] time 0.0 mem 0
  }
}

// Groups need not be listed in rank order; their order is kept.
// CHECK-LABEL: plan.step @unordered_groups
// CHECK:         plan.sp_group degree 2 ranks [2, 3] seqs [1]
// CHECK-NEXT:    plan.sp_group degree 2 ranks [0, 1] seqs [0]
plan.step @unordered_groups index 0 world 4 time 1.0 peak_mem 64 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 2 ranks [2, 3] seqs [1] time 1.0 mem 64
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 64
  }
}

// Times print in the shortest decimal form that reads back exactly.
// CHECK-LABEL: plan.step @decimals index 0 world 2 time 1.0e+20 peak_mem 0 {
// CHECK-NEXT:    plan.microbatch 0 time 2.0 {
// CHECK-NEXT:      plan.sp_group degree 1 ranks [0, 0] seqs [0] time 3.0e-06 mem 0
// CHECK-NEXT:      plan.sp_group degree 1 ranks [1, 1] seqs [1] time 0.1 mem 0
// CHECK-NEXT:    }
// CHECK-NEXT:    plan.microbatch 1 time 0.30000000000000004 {
plan.step @decimals index 0 world 2 time 1.0e20 peak_mem 0 {
  plan.microbatch 0 time 2.000 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 0.000003 mem 0
    plan.sp_group degree 1 ranks [1, 1] seqs [1] time 1.0e-1 mem 0
  }
  plan.microbatch 1 time 0.30000000000000004 {
    plan.sp_group degree 2 ranks [0, 1] seqs [2] time 0.3 mem 0
  }
}

// The step sums its micro-batch times with a relative tolerance of 1e-9:
// 0.1 + 0.2 is 0.30000000000000004 in doubles, above the recorded 0.3.
// CHECK-LABEL: plan.step @rounded_sum index 0 world 1 time 0.3 peak_mem 0 {
plan.step @rounded_sum index 0 world 1 time 0.3 peak_mem 0 {
  plan.microbatch 0 time 0.1 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 0.1 mem 0
  }
  plan.microbatch 1 time 0.2 {
    plan.sp_group degree 1 ranks [0, 0] seqs [1] time 0.2 mem 0
  }
}

// Extra attributes survive after the `attributes` keyword.
// CHECK-LABEL: plan.step @annotated index 0 world 1 time 1.0 peak_mem 8 attributes {plan.note = "baseline"} {
// CHECK-NEXT:    plan.microbatch 0 time 1.0 attributes {plan.note = "only"} {
// CHECK-NEXT:      plan.sp_group degree 1 ranks [0, 0] seqs [9] time 1.0 mem 8 {plan.note = "g"}
plan.step @annotated index 0 world 1 time 1.0 peak_mem 8 attributes {plan.note = "baseline"} {
  plan.microbatch 0 time 1.0 attributes {plan.note = "only"} {
    plan.sp_group degree 1 ranks [0, 0] seqs [9] time 1.0 mem 8 {plan.note = "g"}
  }
}

// A step whose plan assumes another checkpointing than its job's: the
// typed `checkpoint` keyword (none, selective, full, attention_mlp) round-trips.
// CHECK-LABEL: plan.step @full_ckpt index 0 world 2 time 1.0 peak_mem 10 strategy "best-static:static-sp-2" zero 3 checkpoint full lengths [8] {
plan.step @full_ckpt index 0 world 2 time 1.0 peak_mem 10 strategy "best-static:static-sp-2" zero 3 checkpoint full lengths [8] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 10
  }
}
// CHECK-LABEL: plan.step @no_ckpt index 0 world 2 time 1.0 peak_mem 10 checkpoint none {
plan.step @no_ckpt index 0 world 2 time 1.0 peak_mem 10 checkpoint none {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 10
  }
}

// A step naming its job, strategy, ZeRO stage and sequence lengths, with
// Megatron-style and pipelined groups.
// CHECK-LABEL: plan.step @tp_cp index 0 world 16 time 3.0 peak_mem 2000 job @train strategy "megatron-tp4-cp2" zero 1 lengths [4096, 100, 7] {
// CHECK-NEXT:    plan.microbatch 0 time 1.5 {
// CHECK-NEXT:      plan.sp_group degree 8 ranks [0, 7] seqs [0] time 1.5 mem 2000 tp 4 cp 2
// CHECK-NEXT:      plan.sp_group degree 8 ranks [8, 15] seqs [1, 2] time 0.5 mem 1000 tp 4 pp 2
// CHECK-NEXT:    }
// CHECK-NEXT:  }
plan.step @tp_cp index 0 world 16 time 3.0 peak_mem 2000 job @train strategy "megatron-tp4-cp2" zero 1 lengths [4096, 100, 7] {
  plan.microbatch 0 time 1.5 {
    plan.sp_group degree 8 ranks [0, 7] seqs [0] time 1.5 mem 2000 tp 4 cp 2
    plan.sp_group degree 8 ranks [8, 15] seqs [1, 2] time 0.5 mem 1000 tp 4 pp 2
  }
}

// Alternative plans of a step, as the planning passes write them for
// plx-predict-train: a candidate with its layout, checkpointing label,
// solver time and note, and one a planner could not make.
// CHECK-LABEL: plan.step @job_step0_candidate0 index 0 world 2 time 1.0 peak_mem 10 job @job strategy "flexsp" lengths [5] role candidate layout [1, 1, 1, 1] checkpoint_label "adaptive" solver_time 0.25 note "why" {
plan.step @job_step0_candidate0 index 0 world 2 time 1.0 peak_mem 10 job @job strategy "flexsp" lengths [5] role candidate layout [1, 1, 1, 1] checkpoint_label "adaptive" solver_time 0.25 note "why" {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 10
  }
}
// One replica's plan of a job run as 896 data-parallel replicas.
// CHECK-LABEL: plan.step @folded_step0 index 0 world 2 time 1.0 peak_mem 10 job @job strategy "flexsp" lengths [5] replicas 896 {
plan.step @folded_step0 index 0 world 2 time 1.0 peak_mem 10 job @job strategy "flexsp" lengths [5] replicas 896 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 10
  }
}
// CHECK: plan.unplanned @job_step0_baseline0 index 0 job @job strategy "megatron-tp4-cp1" role baseline reason "tp 4 does not divide the 2 KV heads"
plan.unplanned @job_step0_baseline0 index 0 job @job strategy "megatron-tp4-cp1" role baseline reason "tp 4 does not divide the 2 KV heads"
