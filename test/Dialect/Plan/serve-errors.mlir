// RUN: plx-opt %s -split-input-file -verify-diagnostics
// One case per verifier rule of plan.serve_layout and plan.serve_policy.

//===----------------------------------------------------------------------===//
// plan.serve_layout
//===----------------------------------------------------------------------===//

// expected-error @below {{'plan.serve_layout' op chip count must be at least 1, got 0}}
plan.serve_layout @l job @j chips 0 instances 1 pp 1 ep 1 layers [4] mtp 0

// -----

// expected-error @below {{'plan.serve_layout' op instance count must be at least 1, got 0}}
plan.serve_layout @l job @j chips 8 instances 0 pp 1 ep 1 layers [4] mtp 0

// -----

// expected-error @below {{'plan.serve_layout' op pipeline degree pp must be at least 1, got 0}}
plan.serve_layout @l job @j chips 8 instances 1 pp 0 ep 1 layers [] mtp 0

// -----

// expected-error @below {{'plan.serve_layout' op expert-parallel degree ep must be at least 1, got -2}}
plan.serve_layout @l job @j chips 8 instances 1 pp 1 ep -2 layers [4] mtp 0

// -----

// expected-error @below {{'plan.serve_layout' op MTP draft count must be non-negative, got -1}}
plan.serve_layout @l job @j chips 8 instances 1 pp 1 ep 8 layers [4] mtp -1

// -----

// expected-error @below {{'plan.serve_layout' op layers lists 3 stages, but pp is 2; each stage has one layer count}}
plan.serve_layout @l job @j chips 16 instances 1 pp 2 ep 8 layers [4, 4, 4] mtp 0

// -----

// expected-error @below {{'plan.serve_layout' op stage 1 holds 0 layers; every stage holds at least 1}}
plan.serve_layout @l job @j chips 16 instances 1 pp 2 ep 8 layers [8, 0] mtp 0

// -----

// expected-error @below {{'plan.serve_layout' op 4 instances of pp 2 x ep 8 need 64 chips, but the job has 48}}
plan.serve_layout @l job @j chips 48 instances 4 pp 2 ep 8 dp_attention layers [8, 8] mtp 3

// -----

// The product of the degrees overflows int64.
// expected-error @below {{'plan.serve_layout' op 4611686018427387904 instances of pp 2 x ep 8 need more chips than an int64 counts, but the job has 64}}
plan.serve_layout @l job @j chips 64 instances 4611686018427387904 pp 2 ep 8 layers [8, 8] mtp 0

// -----

// expected-error @below {{'plan.serve_layout' op job 'nowhere' does not name a declaration}}
plan.serve_layout @l job @nowhere chips 8 instances 1 pp 1 ep 8 layers [4] mtp 0

// -----

plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100>
// expected-error @below {{'plan.serve_layout' op job 'm' names a 'plx.model', expected a 'plx.serve'}}
plan.serve_layout @l job @m chips 8 instances 1 pp 1 ep 8 layers [4] mtp 0

// -----

//===----------------------------------------------------------------------===//
// plan.serve_policy
//===----------------------------------------------------------------------===//

// expected-error @below {{'plan.serve_policy' op wave interval must be at least 1 decode round, got 0}}
plan.serve_policy @p layout @l interval 0 jct 10.0 turn_mean 1.0 turn_p50 1.0 turn_p90 2.0 turn_p99 3.0

// -----

// expected-error @below {{'plan.serve_policy' op job completion time must be a finite, non-negative number of seconds, got -2.5}}
plan.serve_policy @p layout @l interval 32 jct -2.5 turn_mean 1.0 turn_p50 1.0 turn_p90 2.0 turn_p99 3.0

// -----

// expected-error @below {{'plan.serve_policy' op mean turn time must be a finite, non-negative number of seconds, got -1.5}}
plan.serve_policy @p layout @l interval 32 jct 10.0 turn_mean -1.5 turn_p50 1.0 turn_p90 2.0 turn_p99 3.0

// -----

// expected-error @below {{'plan.serve_policy' op P50 turn time must be a finite, non-negative number of seconds, got -1.0}}
plan.serve_policy @p layout @l interval 32 jct 10.0 turn_mean 1.0 turn_p50 -1.0 turn_p90 2.0 turn_p99 3.0

// -----

// expected-error @below {{'plan.serve_policy' op P90 turn time must be a finite, non-negative number of seconds, got inf}}
plan.serve_policy @p layout @l interval 32 jct 10.0 turn_mean 1.0 turn_p50 1.0 turn_p90 0x7FF0000000000000 turn_p99 3.0

// -----

// expected-error @below {{'plan.serve_policy' op P99 turn time must be a finite, non-negative number of seconds, got nan}}
plan.serve_policy @p layout @l interval 32 jct 10.0 turn_mean 1.0 turn_p50 1.0 turn_p90 2.0 turn_p99 0x7FF8000000000000

// -----

// expected-error @below {{'plan.serve_policy' op P50 turn time 2.5 exceeds the P90 2.0; percentiles grow with the rank}}
plan.serve_policy @p layout @l interval 32 jct 10.0 turn_mean 1.0 turn_p50 2.5 turn_p90 2.0 turn_p99 3.0

// -----

// expected-error @below {{'plan.serve_policy' op P90 turn time 2.0 exceeds the P99 1.5; percentiles grow with the rank}}
plan.serve_policy @p layout @l interval 32 jct 10.0 turn_mean 1.0 turn_p50 1.0 turn_p90 2.0 turn_p99 1.5

// -----

// expected-error @below {{'plan.serve_policy' op layout 'nowhere' does not name a declaration}}
plan.serve_policy @p layout @nowhere interval 32 jct 10.0 turn_mean 1.0 turn_p50 1.0 turn_p90 2.0 turn_p99 3.0

// -----

plx.model @m <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100>
plx.workload @w #plx.synthetic_agent<preset = swe_bench, tasks = 4, concurrency = 2, turns = 2, prompt = 100, new_tokens = 50, output_tokens = 20, tool_latency = 1.0, max_len = 4096>
plx.fabric @f chip <name = "x", bf16_flops = 1.0e12, fp8_flops = 0.0, hbm_bytes = 1000000000, hbm_bandwidth = 1.0e11, nvlink_bandwidth = 0.0> nodes 2 x 1 intra_node nvswitch 0 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e9>
plx.serve @j model @m workload @w fabric @f seed 1 strategy <>
// expected-error @below {{'plan.serve_policy' op layout 'j' names a 'plx.serve', expected a 'plan.serve_layout'}}
plan.serve_policy @p layout @j interval 32 jct 10.0 turn_mean 1.0 turn_p50 1.0 turn_p90 2.0 turn_p99 3.0
