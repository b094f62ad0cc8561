// RUN: plx-opt %s -split-input-file -verify-diagnostics -plx-lower-to-rt
// RUN: not plx-opt %s -split-input-file -plx-lower-to-rt=step=nope 2>&1 | FileCheck %s --check-prefix=NAMED

// The spec every case lowers against: a 4-layer model with 4 heads on 4 H100.
plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
plx.dataset @short #plx.histogram<bounds = [256], weights = [1.0]> clamp 0 padding 1 overlong drop
plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2>
// expected-error @+1 {{'plan.step' op names no job: plx-lower-to-rt needs the plx.train whose model and chip cost the step}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [8] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
// expected-error @+1 {{'plan.step' op names job @small, which is not a plx.train of the module}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 job @small lengths [8] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
plx.dataset @short #plx.histogram<bounds = [256], weights = [1.0]> clamp 0 padding 1 overlong drop
plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2>
// expected-error @+1 {{'plan.step' op has no sequence lengths; plx-lower-to-rt costs each sequence by its length}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 job @job {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
plx.dataset @short #plx.histogram<bounds = [256], weights = [1.0]> clamp 0 padding 1 overlong drop
plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2>
// expected-error @+1 {{'plan.step' op is one replica of 4 data-parallel replicas; plx-lower-to-rt lowers whole jobs (plan one of at most --max-replica-ranks ranks to generate its programs)}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 job @job lengths [8] replicas 4 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
}

// -----

// Ulysses 8 cannot split 4 heads: the lowering refuses rather than re-plan.
plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
plx.dataset @short #plx.histogram<bounds = [256], weights = [1.0]> clamp 0 padding 1 overlong drop
plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 4 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2>
// expected-error @+1 {{'plan.step' op cannot be lowered: micro-batch 0, group at rank 0: heads (4) do not split over tp * ulysses (8)}}
plan.step @s index 0 world 8 time 1.0 peak_mem 0 job @job lengths [256] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 8 ranks [0, 7] seqs [0] time 1.0 mem 0
  }
}

// -----

// A pipelined step must keep its groups across micro-batches.
plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
plx.dataset @short #plx.histogram<bounds = [256], weights = [1.0]> clamp 0 padding 1 overlong drop
plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2>
// expected-error @+1 {{'plan.step' op cannot be lowered: micro-batch 1, group at rank 0: a pipelined step keeps the same groups in every micro-batch}}
plan.step @s index 0 world 4 time 2.0 peak_mem 0 job @job zero 1 lengths [256, 256] {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 2 ranks [0, 1] seqs [0] time 1.0 mem 0 pp 2
    plan.sp_group degree 2 ranks [2, 3] seqs [] time 1.0 mem 0 pp 2
  }
  plan.microbatch 1 time 1.0 {
    plan.sp_group degree 4 ranks [0, 3] seqs [1] time 1.0 mem 0 pp 2
  }
}

// -----

// Two steps and no step=NAME: which one is ambiguous.
// expected-error @below {{plx-lower-to-rt: the module has 2 plan.step ops; name one with step=NAME}}
module {
  plan.step @a index 0 world 1 time 1.0 peak_mem 0 {
    plan.microbatch 0 time 1.0 {
      plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
    }
  }
  plan.step @b index 1 world 1 time 1.0 peak_mem 0 {
    plan.microbatch 0 time 1.0 {
      plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
    }
  }
}

// NAMED: error: plx-lower-to-rt: no plan.step named 'nope'
