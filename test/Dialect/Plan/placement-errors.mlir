// RUN: plx-opt %s -split-input-file -verify-diagnostics

plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
// expected-error @below {{'plan.job' op needs at least one rank, got 0}}
plan.job @j fabric @f ranks 0 {
}

// -----

// expected-error @below {{'plan.job' op fabric 'nowhere' does not name a declaration}}
plan.job @j fabric @nowhere ranks 1 {
}

// -----

plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100>
// expected-error @below {{'plan.job' op fabric 'm' names a 'plx.model', expected a 'plx.fabric'}}
plan.job @j fabric @m ranks 1 {
}

// -----

plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
// expected-error @below {{'plan.job' op places 1 ranks, but the job has 2}}
plan.job @j fabric @f ranks 2 chips [(0, 0)] {
}

// -----

plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
// expected-error @below {{'plan.job' op ranks share chip (1, 0): rank 1}}
plan.job @j fabric @f ranks 2 chips [(1, 0), (1, 0)] {
}

// -----

plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
plan.job @j fabric @f ranks 2 {
  // expected-error @below {{'plan.comm_group' op rank 2 is outside the job's 2 ranks}}
  plan.comm_group @g ring ranks [0, 2]
}

// -----

plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
plan.job @j fabric @f ranks 2 {
  // expected-error @below {{'plan.comm_group' op ranks lists 1 twice}}
  plan.comm_group @g all_to_all ranks [1, 1]
}

// -----

plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
plan.job @j fabric @f ranks 2 {
  // expected-error @below {{'plan.comm_group' op order must be a permutation of ranks}}
  plan.comm_group @g ring ranks [0, 1] order [0, 0]
}

// -----

plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
plan.job @j fabric @f ranks 2 {
  // expected-error @below {{'plan.comm_group' op a pipeline needs at least two stages}}
  plan.comm_group @g pipeline ranks [0]
}

// -----

plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
plan.job @j fabric @f ranks 2 {
  // expected-error @below {{'plan.comm_group' op hops must be non-negative, got -1}}
  plan.comm_group @g ring ranks [0, 1] hops -1
}

// -----

plan.circuits @c {
  // expected-error @below {{'plan.circuit' op cycle lists 2 twice}}
  plan.circuit row 0 rail 0 cycle [0, 2, 2]
}

// -----

plan.circuits @c {
  // expected-error @below {{'plan.circuit' op index and rail must be non-negative}}
  plan.circuit col 0 rail -1 cycle [0, 1]
}

// -----

plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
plan.job @j fabric @f ranks 2 {
  // expected-error @below {{'plx.model' op is not a communicator; a plan.job holds only plan.comm_group ops}}
  plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100>
}

// -----

plan.circuits @c {
  // expected-error @below {{'plan.circuit' op port 3 is outside the switch's 3 ports}}
  plan.circuit row 0 rail 0 cycle [0, 1, 2] ports [1, 2, 3]
}

// -----

plan.circuits @c {
  // expected-error @below {{'plan.circuit' op ports lists 1 twice}}
  // expected-error @below {{'plan.circuit' op ports must be a permutation}}
  plan.circuit row 0 rail 0 cycle [0, 1, 2] ports [1, 1, 0]
}
