// Alternatives plx-predict-train cannot run (plx-predict-train.mlir, ERR).
// The strategy's planner could not plan the step and no baseline the
// strategy admits can: the job fails with the candidate's reason.
module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
  plan.unplanned @job_step0_candidate0 index 0 job @job strategy "static-sp-2" role candidate reason "sequence 2 needs 90 GB on each of its 2 ranks"
  plan.unplanned @job_step0_baseline0 index 0 job @job strategy "static-sp-4" role baseline reason "4 does not divide the heads"
}

// -----

// No candidate: plx-plan-strategy did not run.
module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
}

// -----

// A candidate of another batch (sequences 0 and 2 swapped) is not judged.
module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
  plan.step @job_step0_candidate0 index 0 world 4 time 7.0e-4 peak_mem 68905984 job @job strategy "static-sp-2" lengths [1024, 256, 256, 256, 1024, 256, 256, 1024] role candidate layout [2, 1, 1, 1] {
    plan.microbatch 0 time 7.0e-4 {
      plan.sp_group degree 2 ranks [0, 1] seqs [0, 7] time 7.0e-4 mem 63663104
      plan.sp_group degree 2 ranks [2, 3] seqs [4, 2, 1, 3, 5, 6] time 7.0e-4 mem 68905984
    }
  }
}

// -----

// A candidate on 2 of the job's 4 ranks is not judged.
module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
  plan.step @job_step0_candidate0 index 0 world 2 time 7.0e-4 peak_mem 68905984 job @job strategy "static-sp-2" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] role candidate layout [2, 1, 1, 1] {
    plan.microbatch 0 time 7.0e-4 {
      plan.sp_group degree 2 ranks [0, 1] seqs [2, 7, 4, 0, 1, 3, 5, 6] time 7.0e-4 mem 68905984
    }
  }
}

// -----

// A layout its groups do not have (the report would show sp 4).
module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
  plan.step @job_step0_candidate0 index 0 world 4 time 7.0e-4 peak_mem 68905984 job @job strategy "static-sp-2" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] role candidate layout [4, 1, 1, 1] {
    plan.microbatch 0 time 7.0e-4 {
      plan.sp_group degree 2 ranks [0, 1] seqs [2, 7] time 7.0e-4 mem 63663104
      plan.sp_group degree 2 ranks [2, 3] seqs [4, 0, 1, 3, 5, 6] time 7.0e-4 mem 68905984
    }
  }
}

// -----

// A candidate the strategy does not allow (a pipeline, ZeRO-1, where it
// fixes sp 2, pp 1, ZeRO-3) is not the job's plan.
module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
  plan.step @job_step0_candidate0 index 0 world 4 time 7.0e-4 peak_mem 68905984 job @job strategy "static-sp-2" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] role candidate layout [2, 1, 1, 1] {
    plan.microbatch 0 time 7.0e-4 {
      plan.sp_group degree 2 ranks [0, 1] seqs [2, 7] time 7.0e-4 mem 63663104
      plan.sp_group degree 2 ranks [2, 3] seqs [4, 0, 1, 3, 5, 6] time 7.0e-4 mem 68905984
    }
  }
  plan.step @job_step0_candidate1 index 0 world 4 time 1.2e-4 peak_mem 61775872 job @job strategy "pp4-tp1-1f1b" zero 1 lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] role candidate layout [1, 1, 1, 4] {
    plan.microbatch 0 time 1.2e-4 {
      plan.sp_group degree 4 ranks [0, 3] seqs [2, 4, 7, 0, 3, 6, 1, 5] time 1.2e-4 mem 61775872 pp 4
    }
  }
}

// -----

// Alternatives of a job that is not in the module, or of a step the job
// does not run.
module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
  plan.step @job_step0_candidate0 index 0 world 4 time 7.0e-4 peak_mem 68905984 job @job strategy "static-sp-2" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] role candidate layout [2, 1, 1, 1] {
    plan.microbatch 0 time 7.0e-4 {
      plan.sp_group degree 2 ranks [0, 1] seqs [2, 7] time 7.0e-4 mem 63663104
      plan.sp_group degree 2 ranks [2, 3] seqs [4, 0, 1, 3, 5, 6] time 7.0e-4 mem 68905984
    }
  }
  plan.unplanned @ghost_step0_baseline0 index 0 job @ghost strategy "static-sp-1" role baseline reason "r"
  plan.unplanned @job_step1_baseline0 index 1 job @job strategy "static-sp-1" role baseline reason "r"
}
