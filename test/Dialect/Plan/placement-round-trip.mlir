// RUN: plx-opt %s | plx-opt | FileCheck %s
// RUN: plx-opt %s --mlir-print-op-generic | plx-opt | FileCheck %s

plx.fabric @cluster chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 5.0e10>

// CHECK-LABEL: plan.job @train fabric @cluster ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
// CHECK-NEXT:    plan.comm_group @sp all_to_all ranks [0, 1, 2, 3] order [0, 1, 3, 2] hops 1
// CHECK-NEXT:    plan.comm_group @pp pipeline ranks [0, 2]
// CHECK-NEXT:  }
plan.job @train fabric @cluster ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
  plan.comm_group @sp all_to_all ranks [0, 1, 2, 3] order [0, 1, 3, 2] hops 1
  plan.comm_group @pp pipeline ranks [0, 2]
}

// Before placement a job has no chips.
// CHECK-LABEL: plan.job @other fabric @cluster ranks 2 {
// CHECK-NEXT:    plan.comm_group @dp ring ranks [0, 1]
plan.job @other fabric @cluster ranks 2 {
  plan.comm_group @dp ring ranks [0, 1]
}

// CHECK-LABEL: plan.circuits @cluster_circuits {
// CHECK-NEXT:    plan.circuit row 0 rail 1 cycle [0, 2, 1] ports [2, 0, 1]
// CHECK-NEXT:    plan.circuit col 2 rail 0 cycle [2, 5, 8]
plan.circuits @cluster_circuits {
  plan.circuit row 0 rail 1 cycle [0, 2, 1] ports [2, 0, 1]
  plan.circuit col 2 rail 0 cycle [2, 5, 8]
}
