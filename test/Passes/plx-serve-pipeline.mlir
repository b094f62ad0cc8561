// plx-serve-pipeline alone, with IR as its input: the imported spec of
// test/Tools/Inputs/serve-small.plx, as plx-opt prints it. plx-serve-
// pipeline.test keeps the runs that edit the spec or run more passes after it.

// plx-serve-pipeline plans each plx.serve the way plxc does (layout, layer
// split, wave interval; passes/ServeJob/ServePipeline.h) and writes the
// plan as plan.serve_layout and plan.serve_policy ops. The small spec: a
// 16-layer MoE on 16 H800, PP2 x EP8 with DP-attention, MTP 3, and an
// interval the planner chooses.
// RUN: plx-opt %s -plx-serve-pipeline | FileCheck %s
// One instance on all 16 chips; the layer split sums to the model's 16
// layers.
// CHECK:      plx.serve @agents
// CHECK-NEXT: plan.serve_layout @agents_layout job @agents chips 16 instances 1 pp 2 ep 8 dp_attention layers {{\[}}[[#FIRST:]],
// CHECK-SAME: {{^}} [[#16-FIRST]]] mtp 3{{$}}
// CHECK-NEXT: plan.serve_policy @agents_policy layout @agents_layout interval {{[0-9]+}} chosen jct {{[0-9.e+-]+}} turn_mean {{[0-9.e+-]+}} turn_p50 {{[0-9.e+-]+}} turn_p90 {{[0-9.e+-]+}} turn_p99 {{[0-9.e+-]+}}{{$}}

// The job's prediction, plxc's report for it, is attached to the job: the
// plan's completion times and the four baseline systems' replays, in the
// order plxc reports them (plx-train-pipeline.test compares it with
// plxc's JSON). The strategy fixes pp 2 x ep 8 with DP-attention, and SGLang's
// wide EP on the same 16 chips finishes sooner (67.70 s and 68.00 s against
// 68.75 s): faster_baselines names both, with their ratios and what kept
// the plan (the 2P2D system is as fast but on 32 chips, so it is not
// listed). baselines=false replays none.
// RUN: plx-opt %s -plx-serve-pipeline | FileCheck %s --check-prefix=PRED
// PRED: plx.serve @agents {{.*}}{plan.prediction = {baselines = [{{.*}}name = "wide-ep"}, {{.*}}name = "wide-ep-prefill-delay"}, {{.*}}name = "vllm-pp2"}, {{.*}}name = "pd-disaggregated"}], completed = true, faster_baselines = [{name = "wide-ep", ratio = 1.01{{[0-9]+}} : f64, why = "the plan keeps what the strategy fixes (pp 2, ep 8, DP-attention)"}, {name = "wide-ep-prefill-delay", ratio = 1.01{{[0-9]+}} : f64, why = "the plan keeps what the strategy fixes (pp 2, ep 8, DP-attention)"}], jct = {overall_s =
// RUN: plx-opt %s -plx-serve-pipeline=baselines=false | FileCheck %s --check-prefix=NOBASE
// NOBASE: plx.serve @agents {{.*}}{plan.prediction = {baselines = [], completed = true, faster_baselines = [], jct

// interval=16 fixes the wave interval: not chosen by the planner. The
// output parses and verifies again.
// RUN: plx-opt %s -plx-serve-pipeline=interval=16 | plx-opt | FileCheck %s --check-prefix=FIXED
// FIXED:      plan.serve_layout @agents_layout job @agents chips 16 instances 1 pp 2 ep 8 dp_attention layers
// FIXED-NEXT: plan.serve_policy @agents_policy layout @agents_layout interval 16 jct {{[0-9.e+-]+}} turn_mean

// A negative interval is rejected, and so is planning a job twice.
// RUN: not plx-opt %s -plx-serve-pipeline=interval=-1 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: error: plx-serve-pipeline: interval must be at least 1, or 0 to keep the strategy's, got -1
// RUN: not plx-opt %s -plx-serve-pipeline -plx-serve-pipeline 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: 'plx.serve' op cannot add its plan: the module already declares @agents_layout

module {
  plx.model @moe <layers = 16, hidden = 2048, heads = 16, kv_heads = 4, head_dim = 128, ffn = 8192, vocab = 32000, experts = 32, top_k = 4, shared_experts = 1, moe_ffn = 1024, dense_layers = 1, mtp_layers = 1, dtype = fp8>
  plx.workload @swe #plx.synthetic_agent<preset = swe_bench, tasks = 48, concurrency = 16, turns = 6, prompt = 4000, new_tokens = 1500, output_tokens = 600, tool_latency = 3.0, max_len = 32768>
  plx.fabric @h800_16 chip <name = "H800", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 4.0e+11, sm_count = 132> nodes 2 x 8 intra_node nvswitch 200000000000 topology #plx.rail_optimized<rails = 8, radix = 16, link_bandwidth = 5.0e+10>
  plx.serve @agents model @moe workload @swe fabric @h800_16 seed 5 strategy <pp = 2, ep = 8, dp_attention = true, mtp_drafts = 3>
}
