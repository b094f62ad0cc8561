// RUN: plx-opt %s -split-input-file -plx-place | FileCheck %s

// A 1 x 5 RailX row with 2 rails: rows of 5 <= 2R+1 nodes are one hop
// all-to-all, and each rail is one Hamiltonian ring over the row.
plx.fabric @row chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 5 x 1 intra_node nvswitch 450000000000 topology #plx.railx<rows = 1, cols = 5, rails = 2, link_bandwidth = 1.0e11>

// The circuit table follows the fabric: one ring per rail of the row, the
// Walecki decomposition of K_5 ((4 0 1 3 2) and (4 1 2 0 3)), and one
// single-node ring per rail of each 1-node column.
// CHECK-LABEL: plan.circuits @row_circuits
// CHECK-NEXT: plan.circuit row 0 rail 0 cycle [4, 0, 1, 3, 2]
// CHECK-NEXT: plan.circuit row 0 rail 1 cycle [4, 1, 2, 0, 3]
// CHECK-NEXT: plan.circuit col 0 rail 0 cycle [0]

// CHECK-LABEL: plan.job @sp fabric @row ranks 5
// CHECK-SAME: chips [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]
// CHECK-NEXT: plan.comm_group @a2a all_to_all ranks [0, 1, 2, 3, 4] order [0, 1, 2, 3, 4] hops 1
plan.job @sp fabric @row ranks 5 {
  plan.comm_group @a2a all_to_all ranks [0, 1, 2, 3, 4]
}

// -----

// Two jobs on one fabric get disjoint chips; a pipeline takes neighbours.
plx.fabric @grid chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 9 x 2 intra_node nvswitch 450000000000 topology #plx.railx<rows = 3, cols = 3, rails = 1, link_bandwidth = 1.0e11> failed <chip(0, 1)>

// CHECK-LABEL: plan.circuits @grid_circuits
// CHECK-NEXT: plan.circuit row 0 rail 0 cycle [2, 0, 1]
// CHECK: plan.circuit col 2 rail 0 cycle [8, 2, 5]

// A ring that fits a node goes whole onto one: node 0 has one healthy chip
// left, so node 1.
// CHECK-LABEL: plan.job @first fabric @grid ranks 2 chips [(1, 0), (1, 1)]
// CHECK-NEXT: plan.comm_group @dp ring ranks [0, 1] order [0, 1] hops 0
plan.job @first fabric @grid ranks 2 {
  plan.comm_group @dp ring ranks [0, 1]
}
// The failed chip (0, 1) is never used; consecutive stages are one hop apart.
// CHECK-LABEL: plan.job @second fabric @grid ranks 4 chips [(0, 0), (2, 0), (2, 1), (5, 0)]
// CHECK-NEXT: plan.comm_group @pp pipeline ranks [0, 1, 2, 3] order [0, 1, 2, 3] hops 1
plan.job @second fabric @grid ranks 4 {
  plan.comm_group @pp pipeline ranks [0, 1, 2, 3]
}
