// RUN: plx-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{heads (48) must divide hidden (4096)}}
plx.model @m <layers = 32, hidden = 4096, heads = 48, kv_heads = 48, head_dim = 0, ffn = 1024, vocab = 100>

// -----

// expected-error @below {{kv_heads (12) must divide heads (32)}}
plx.model @m <layers = 32, hidden = 4096, heads = 32, kv_heads = 12, head_dim = 128, ffn = 1024, vocab = 100>

// -----

// expected-error @below {{top_k}}
plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100, experts = 4, top_k = 8, moe_ffn = 128>

// -----

// expected-error @below {{lognormal sigma must be positive, got 0}}
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 0.0> clamp 0 padding 1 overlong drop

// -----

// expected-error @below {{histogram has 2 bounds but 1 weights}}
plx.dataset @d #plx.histogram<bounds = [10, 20], weights = [1.0]> clamp 0 padding 1 overlong drop

// -----

// expected-error @below {{histogram bounds must increase from 1: bound #1 is 10 after 20}}
plx.dataset @d #plx.histogram<bounds = [20, 10], weights = [1.0, 1.0]> clamp 0 padding 1 overlong drop

// -----

// expected-error @below {{histogram weights sum to zero}}
plx.dataset @d #plx.histogram<bounds = [20], weights = [0.0]> clamp 0 padding 1 overlong drop

// -----

// expected-error @below {{lengths file holds no lengths}}
plx.dataset @d #plx.lengths_file<"x.txt", count = 0, max = 1> clamp 0 padding 1 overlong drop

// -----

// expected-error @below {{'plx.dataset' op clamp must be non-negative (0: no limit), got -1}}
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 1.0> clamp -1 padding 1 overlong drop

// -----

// expected-error @below {{'plx.dataset' op padding must be at least 1, got 0}}
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 1.0> clamp 0 padding 0 overlong drop

// -----

// expected-error @below {{'plx.dataset' op padding (256) exceeds the clamp (128)}}
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 1.0> clamp 128 padding 256 overlong drop

// -----

// expected-error @below {{unknown overlong policy 'keep'}}
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 1.0> clamp 128 padding 1 overlong keep

// -----

// expected-error @below {{concurrency must be positive, got 0}}
plx.workload @w #plx.trajectories<"t.jsonl", tasks = 3, concurrency = 0>

// -----

// expected-error @below {{max_len (100) cannot hold the first turn (2000 prompt + 400 output tokens)}}
plx.workload @w #plx.synthetic_agent<preset = custom, tasks = 1, concurrency = 1, turns = 1, prompt = 2000, new_tokens = 1, output_tokens = 400, tool_latency = 1.0, max_len = 100>

// -----

// expected-error @below {{chip hbm_bytes must be positive}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 0, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 1 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>

// -----

// expected-error @below {{'plx.fabric' op needs at least one node, got 0}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 0 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>

// -----

// expected-error @below {{'plx.fabric' op intra-node bandwidth must be positive with 4 chips per node}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 4 intra_node ring 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>

// -----

// expected-error @below {{railx grid 4 x 4 = 16 nodes, but the fabric has 12 nodes}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 12 x 1 intra_node nvswitch 0 topology #plx.railx<rows = 4, cols = 4, rails = 2, link_bandwidth = 1.0e11>

// -----

// expected-error @below {{torus}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 9 x 1 intra_node nvswitch 0 topology #plx.torus<dims = [2, 2, 2], link_bandwidth = 1.0e9>

// -----

plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100>
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 1.0> clamp 0 padding 1 overlong drop
// expected-error @below {{'plx.train' op fabric 'nowhere' does not name a declaration}}
plx.train @t model @m data @d fabric @nowhere batch 8 steps 1 seed 0 strategy <>

// -----

plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100>
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 1.0> clamp 0 padding 1 overlong drop
// expected-error @+2 {{'plx.train' op data 'm' names a 'plx.model', expected a 'plx.dataset'}}
// expected-error @+1 {{'plx.train' op fabric 'd' names a 'plx.dataset', expected a 'plx.fabric'}}
plx.train @t model @m data @m fabric @d batch 8 steps 1 seed 0 strategy <>

// -----

// expected-error @below {{'plx.train' op batch must be at least one sequence, got 0}}
plx.train @t model @m data @d fabric @f batch 0 steps 1 seed 0 strategy <>

// -----

// expected-error @below {{'plx.train' op zero stage must be 0..3, got 4}}
plx.train @t model @m data @d fabric @f batch 1 steps 1 seed 0 strategy <zero = 4>

// -----

// expected-error @below {{'plx.train' op checkpoint_layers needs an unpipelined job (static pp_degree 1) with checkpoint selective, attention_mlp or full}}
plx.train @t model @m data @d fabric @f batch 1 steps 1 seed 0 strategy <checkpoint_layers = 4>

// -----

// expected-error @below {{'plx.train' op checkpoint_layers needs an unpipelined job (static pp_degree 1) with checkpoint selective, attention_mlp or full}}
plx.train @t model @m data @d fabric @f batch 1 steps 1 seed 0 strategy <pp_degree = 2, checkpoint = full, checkpoint_layers = 4>

// -----

// expected-error @below {{'plx.train' op checkpoint_layers must be non-negative, got -1}}
plx.train @t model @m data @d fabric @f batch 1 steps 1 seed 0 strategy <checkpoint = full, checkpoint_layers = -1>

// -----

// expected-error @below {{'plx.train' op zero_prefetch must be 0 or 1, got 2}}
plx.train @t model @m data @d fabric @f batch 1 steps 1 seed 0 strategy <zero_prefetch = 2>

// -----

// expected-error @below {{'plx.train' op zero_prefetch applies to ZeRO-3's gathers, but the zero stage is 1}}
plx.train @t model @m data @d fabric @f batch 1 steps 1 seed 0 strategy <zero = 1, zero_prefetch = 0>

// -----

// expected-error @below {{'plx.train' op virtual_stages must be at least 1, got 0}}
plx.train @t model @m data @d fabric @f batch 1 steps 1 seed 0 strategy <pp_degree = 2, virtual_stages = 0>

// -----

// expected-error @below {{'plx.train' op virtual_stages 2 interleaves model chunks and needs a static pp_degree >= 2}}
plx.train @t model @m data @d fabric @f batch 1 steps 1 seed 0 strategy <pp = dynamic, virtual_stages = 2>

// -----

// expected-error @below {{'plx.train' op static sp needs sp_degree >= 1}}
plx.train @t model @m data @d fabric @f batch 1 steps 1 seed 0 strategy <sp_degree = 0>

// -----

plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100>
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 1.0> clamp 0 padding 1 overlong drop
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 8 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
// expected-error @below {{sp (8) must divide heads (4)}}
plx.train @t model @m data @d fabric @f batch 8 steps 1 seed 0 strategy <sp_degree = 8>

// -----

// One layer of 4096 x 16384 GeLU needs about 2.2 GB with Adam; the chip has 1 GB.
plx.model @m <layers = 4, hidden = 4096, heads = 32, kv_heads = 32, head_dim = 128, ffn = 16384, vocab = 100, mlp = gelu>
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 1.0> clamp 0 padding 1 overlong drop
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 1 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
// expected-error @below {{the largest layer needs}}
plx.train @t model @m data @d fabric @f batch 8 steps 1 seed 0 strategy <zero = 0>

// -----

// pp = 0 leaves the depth to the planner; a negative degree is an error.
// expected-error @below {{'plx.serve' op pp and ep must be at least 1 (0: the planner chooses)}}
plx.serve @s model @m workload @w fabric @f seed 0 strategy <pp = -1>

// -----

plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100, experts = 6, top_k = 2, moe_ffn = 128>
plx.workload @w #plx.trajectories<"t.jsonl", tasks = 3, concurrency = 1>
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 4 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
// expected-error @below {{ep (4) must divide experts (6)}}
plx.serve @s model @m workload @w fabric @f seed 0 strategy <ep = 4>

// -----

plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100>
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 1 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
// expected-error @below {{'plx.serve' op workload 'm' names a 'plx.model', expected a 'plx.workload'}}
plx.serve @s model @m workload @m fabric @f seed 0 strategy <>

// -----

// expected-error @below {{failed chip: node 9 is outside [0, 9)}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 9 x 1 intra_node nvswitch 0 topology #plx.railx<rows = 3, cols = 3, rails = 1, link_bandwidth = 1.0e11> failed <chip(9, 0)>

// -----

// expected-error @below {{expected 'row' or 'col'}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 9 x 1 intra_node nvswitch 0 topology #plx.railx<rows = 3, cols = 3, rails = 1, link_bandwidth = 1.0e11> failed <port(diag, 0, 0, 0)>

// -----

// A price table keeps dialects/Common/Prices.h's rules.
// expected-error @below {{speed classes must have distinct rates, ascending}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9> prices <ocs_port = 300.0, ocs_radix = 300, fibre = 50.0, speeds = [(800.0, 600.0, 800.0, 64.0, 0.0), (400.0, 350.0, 400.0, 128.0, 0.0)]>

// -----

// expected-error @below {{an OCS has at least 2 ports, got ocs_radix = 1}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9> prices <ocs_port = 300.0, ocs_radix = 1, fibre = 1.0, speeds = [(800.0, 600.0, 800.0, 64.0, 0.0)]>

// -----

// expected-error @below {{a switch radix is a whole number, got 6.4}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9> prices <ocs_port = 300.0, ocs_radix = 300, fibre = 5.0, speeds = [(800.0, 600.0, 800.0, 6.4, 0.0)]>

// -----

// expected-error @below {{the price table has no speed class}}
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9> prices <ocs_port = 300.0, ocs_radix = 300, fibre = 5.0, speeds = []>

// -----

// expected-error @below {{choose_attention leaves the attention layout to the planner; dp_attention must then be false}}
plx.serve @s model @moe workload @w fabric @f seed 0 strategy <ep = 8, dp_attention = true, choose_attention = true>

// -----

// expected-error @below {{kv_aware_routing places turns on DP-attention ranks; it needs dp_attention or choose_attention}}
plx.serve @s model @moe workload @w fabric @f seed 0 strategy <ep = 8, kv_aware_routing = true>
