// RUN: plx-opt %s | plx-opt | FileCheck %s
// RUN: plx-opt %s --mlir-print-op-generic | plx-opt | FileCheck %s

// CHECK-LABEL: plx.model @dense
// CHECK-SAME: <layers = 32, hidden = 4096, heads = 32, kv_heads = 8, head_dim = 128, ffn = 14336, vocab = 128256>
plx.model @dense <layers = 32, hidden = 4096, heads = 32, kv_heads = 8, head_dim = 128, ffn = 14336, vocab = 128256>

// Defaults (swiglu, untied, bf16, no experts) are elided; the rest prints.
// CHECK-LABEL: plx.model @moe
// CHECK-SAME: mlp = gelu, tied_embeddings = true, experts = 16, top_k = 2, shared_experts = 1, moe_ffn = 512, dense_layers = 1, mtp_layers = 1, dtype = fp8>
plx.model @moe <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 1000, mlp = gelu, tied_embeddings = true, experts = 16, top_k = 2, shared_experts = 1, moe_ffn = 512, dense_layers = 1, mtp_layers = 1, dtype = fp8>

// CHECK-LABEL: plx.dataset @lognormal
// CHECK-SAME: #plx.lognormal<mu = 7.0, sigma = 1.25> clamp 0 padding 1 overlong drop
plx.dataset @lognormal #plx.lognormal<mu = 7, sigma = 1.25> clamp 0 padding 1 overlong drop

// CHECK-LABEL: plx.dataset @histogram
// CHECK-SAME: #plx.histogram<bounds = [2048, 8192], weights = [0.9, 0.1]> clamp 8192 padding 64 overlong truncate
plx.dataset @histogram #plx.histogram<bounds = [2048, 8192], weights = [0.9, 0.1]> clamp 8192 padding 64 overlong truncate

// CHECK-LABEL: plx.dataset @file
// CHECK-SAME: #plx.lengths_file<"data/lengths.txt", count = 1000, max = 65536>
plx.dataset @file #plx.lengths_file<"data/lengths.txt", count = 1000, max = 65536> clamp 32768 padding 128 overlong drop

// CHECK-LABEL: plx.workload @recorded
// CHECK-SAME: #plx.trajectories<"swe.jsonl", tasks = 12, concurrency = 4>
plx.workload @recorded #plx.trajectories<"swe.jsonl", tasks = 12, concurrency = 4>

// CHECK-LABEL: plx.workload @synthetic
// CHECK-SAME: #plx.synthetic_agent<preset = browsecomp, tasks = 64, concurrency = 8, turns = 10, prompt = 2000, new_tokens = 3000, output_tokens = 400, tool_latency = 2.5, max_len = 81920>
plx.workload @synthetic #plx.synthetic_agent<preset = browsecomp, tasks = 64, concurrency = 8, turns = 10, prompt = 2000, new_tokens = 3000, output_tokens = 400, tool_latency = 2.5, max_len = 81920>

// CHECK-LABEL: plx.fabric @fat
// CHECK-SAME: chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 4 x 8 intra_node nvswitch 900000000000 topology #plx.fat_tree<radix = 16, tiers = 2, link_bandwidth = 5.0e+10, oversubscription = 2.0>
plx.fabric @fat chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 4 x 8 intra_node nvswitch 900000000000 topology #plx.fat_tree<radix = 16, tiers = 2, link_bandwidth = 5.0e10, oversubscription = 2.0>

// CHECK-LABEL: plx.fabric @railx
// CHECK-SAME: topology #plx.railx<rows = 4, cols = 4, rails = 2, link_bandwidth = 1.0e+11, directed = true>
plx.fabric @railx chip <name = "B200", bf16_flops = 2.25e15, fp8_flops = 4.5e15, hbm_bytes = 180000000000, hbm_bandwidth = 8.0e12, nvlink_bandwidth = 1.8e12, sm_count = 148> nodes 16 x 8 intra_node nvswitch 1800000000000 topology #plx.railx<rows = 4, cols = 4, rails = 2, link_bandwidth = 1.0e11, directed = true>

// CHECK-LABEL: plx.fabric @torus
// CHECK-SAME: intra_node ring 20000000000 topology #plx.torus<dims = [2, 2, 2], link_bandwidth = 2.5e+10>
plx.fabric @torus chip <name = "CPU", bf16_flops = 2.0e12, fp8_flops = 0.0, hbm_bytes = 68719476736, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 8 x 4 intra_node ring 20000000000 topology #plx.torus<dims = [2, 2, 2], link_bandwidth = 2.5e10>

// CHECK-LABEL: plx.fabric @rails
// CHECK-SAME: topology #plx.rail_optimized<rails = 8, radix = 64, link_bandwidth = 5.0e+10>
plx.fabric @rails chip <name = "H800", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 4.0e11, sm_count = 132> nodes 8 x 8 intra_node nvswitch 400000000000 topology #plx.rail_optimized<rails = 8, radix = 64, link_bandwidth = 5.0e10>

// CHECK-LABEL: plx.train @adaptive
// CHECK-SAME: model @dense data @file fabric @fat batch 512 steps 2 seed 42 strategy <sp = adaptive, sp_degree = 0, checkpoint = selective, memory_limit = 30000000000>
plx.train @adaptive model @dense data @file fabric @fat batch 512 steps 2 seed 42 strategy <sp = adaptive, sp_degree = 0, checkpoint = selective, zero = 3, memory_limit = 30000000000>

// CHECK-LABEL: plx.train @static
// CHECK-SAME: strategy <sp_degree = 8, pp = dynamic, pp_degree = 0, checkpoint = adaptive, zero = 1>
plx.train @static model @dense data @histogram fabric @fat batch 64 steps 1 seed 0 strategy <sp_degree = 8, pp = dynamic, pp_degree = 0, checkpoint = adaptive, zero = 1>

// CHECK-LABEL: plx.serve @serve
// CHECK-SAME: model @moe workload @synthetic fabric @rails seed 3 strategy <pp = 2, ep = 8, dp_attention = true, mtp_drafts = 1, memory_utilization = 0.7>
plx.serve @serve model @moe workload @synthetic fabric @rails seed 3 strategy <pp = 2, ep = 8, dp_attention = true, mtp_drafts = 1, memory_utilization = 0.7>

// The planner chooses the attention layout; turns go to ranks by KV load.
// CHECK-LABEL: plx.serve @serve_auto
// CHECK-SAME: strategy <pp = 2, ep = 8, choose_attention = true, kv_aware_routing = true>
plx.serve @serve_auto model @moe workload @synthetic fabric @rails seed 3 strategy <pp = 2, ep = 8, choose_attention = true, kv_aware_routing = true>

// CHECK-LABEL: plx.fabric @faulty
// CHECK-SAME: topology #plx.railx<rows = 3, cols = 3, rails = 1, link_bandwidth = 1.0e+11> failed <chip(3, 1), link(4, 5), port(row, 2, 0, 2), port(col, 0, 0, 1)>
plx.fabric @faulty chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 9 x 8 intra_node nvswitch 450000000000 topology #plx.railx<rows = 3, cols = 3, rails = 1, link_bandwidth = 1.0e11> failed <chip(3, 1), link(4, 5), port(row, 2, 0, 2), port(col, 0, 0, 1)>
