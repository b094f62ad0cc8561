// RUN: plx-opt %s | plx-opt | FileCheck %s
// RUN: plx-opt %s -mlir-print-op-generic | plx-opt | FileCheck %s
// RUN: plx-opt %s -emit-bytecode | plx-opt | FileCheck %s
// Round trip of a serve job's plan (plan.serve_layout, plan.serve_policy)
// through the custom form, the generic form and bytecode; the checks see
// the custom form printed at the end.

plx.model @moe <layers = 92, hidden = 2048, heads = 16, kv_heads = 4, head_dim = 128, ffn = 8192, vocab = 32000, experts = 32, top_k = 4, shared_experts = 1, moe_ffn = 1024, dense_layers = 1, mtp_layers = 1, dtype = fp8>
plx.workload @swe #plx.synthetic_agent<preset = swe_bench, tasks = 48, concurrency = 16, turns = 6, prompt = 4000, new_tokens = 1500, output_tokens = 600, tool_latency = 3.0, max_len = 32768>
plx.fabric @h800_64 chip <name = "H800", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 4.0e+11, sm_count = 132> nodes 8 x 8 intra_node nvswitch 200000000000 topology #plx.rail_optimized<rails = 8, radix = 16, link_bandwidth = 5.0e+10>
plx.serve @pipeswift model @moe workload @swe fabric @h800_64 seed 5 strategy <pp = 2, ep = 8, dp_attention = true, mtp_drafts = 3>
plx.serve @wide model @moe workload @swe fabric @h800_64 chips 32 seed 5 strategy <ep = 16>

// Four PP2 x EP8 instances with DP-attention on 64 chips, an uneven layer
// split and MTP; the planner chose the interval.
// CHECK:      plan.serve_layout @pipeswift_layout job @pipeswift chips 64 instances 4 pp 2 ep 8 dp_attention layers [48, 44] mtp 3
// CHECK-NEXT: plan.serve_policy @pipeswift_policy layout @pipeswift_layout interval 363 chosen jct 4521.1 turn_mean 35.2 turn_p50 24.9 turn_p90 68.7 turn_p99 144.2
plan.serve_layout @pipeswift_layout job @pipeswift chips 64 instances 4 pp 2 ep 8 dp_attention layers [48, 44] mtp 3
plan.serve_policy @pipeswift_policy layout @pipeswift_layout interval 363 chosen jct 4521.1 turn_mean 35.2 turn_p50 24.9 turn_p90 68.7 turn_p99 144.2

// One stage of EP16 with tensor-parallel attention, no MTP, leaving chips
// of the job unused; a fixed prefill-first interval; equal percentiles.
// CHECK-NEXT: plan.serve_layout @wide_layout job @wide chips 32 instances 1 pp 1 ep 16 layers [92] mtp 0
// CHECK-NEXT: plan.serve_policy @wide_policy layout @wide_layout interval 1 jct 0.0 turn_mean 0.0 turn_p50 2.0 turn_p90 2.0 turn_p99 2.0
plan.serve_layout @wide_layout job @wide chips 32 instances 1 pp 1 ep 16 layers [92] mtp 0
plan.serve_policy @wide_policy layout @wide_layout interval 1 jct 0.0 turn_mean 0.0 turn_p50 2.0 turn_p90 2.0 turn_p99 2.0
