//===- FrameworkArgs.cpp - Plans as the frameworks' launch settings -------===//
#include "codegen/Report/FrameworkArgs.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

using json = nlohmann::ordered_json;
using namespace plexus::report;

namespace {

std::string seconds(double s) {
  char buffer[48];
  if (s >= 1)
    std::snprintf(buffer, sizeof(buffer), "%.3g s", s);
  else
    std::snprintf(buffer, sizeof(buffer), "%.3g ms", s * 1e3);
  return buffer;
}

int64_t integer(const json &j, const char *key, int64_t fallback = 0) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>()
                                                  : fallback;
}

/// A plan as the emitters need it: from the job's "plan" or one "explored"
/// row (the same keys).
struct TrainPlan {
  std::string name;
  bool adaptiveSp = false; ///< FlexSP's mixed groups
  bool dynamicPipelines = false;
  int64_t sp = 1, tp = 1, cp = 1, pp = 1, vpp = 1, zero = 0;
  std::string checkpoint;
  int64_t checkpointFirstLayers = 0;
  bool zeroOnDemand = false;
  int64_t microbatches = 0;
  double predicted = 0;
};

TrainPlan trainPlan(const json &p, const std::string &name, double predicted) {
  TrainPlan t;
  t.name = name;
  t.predicted = predicted;
  const json &l = p["layout"];
  t.adaptiveSp = l["sp"].is_string() || name.rfind("flexsp", 0) == 0;
  t.sp = l["sp"].is_number_integer() ? l["sp"].get<int64_t>() : 1;
  t.tp = integer(l, "tp", 1);
  t.cp = integer(l, "cp", 1);
  t.pp = integer(l, "pp", 1);
  t.vpp = integer(l, "vpp", 1);
  t.zero = integer(p, "zero");
  t.checkpoint = p.value("checkpoint", "none");
  t.checkpointFirstLayers = integer(p, "checkpoint_first_layers");
  t.zeroOnDemand = p.contains("zero_prefetch");
  t.dynamicPipelines = p.contains("pipelines");
  t.microbatches = p.contains("pipelines") ? integer(p, "chunks")
                                           : integer(p, "microbatches");
  return t;
}

/// What the framework cannot state of a plan; empty: expressible.
std::vector<std::string> missing(const TrainPlan &t, Framework f) {
  std::vector<std::string> out;
  if (t.adaptiveSp)
    out.push_back("FlexSP's sequence-parallel groups of different degrees "
                  "in one step (it runs one degree for every sequence)");
  if (t.dynamicPipelines)
    out.push_back("DPP's dynamic pipelines of variable-length chunks (it "
                  "pipelines fixed micro-batches)");
  if (t.checkpoint == "adaptive" || t.checkpoint == "uniform")
    out.push_back("DPP's per-stage chunk checkpointing");
  if (f == Framework::DeepSpeed) {
    if (t.tp > 1)
      out.push_back("tensor parallelism (tp " + std::to_string(t.tp) +
                    "; DeepSpeed runs it through Megatron-DeepSpeed)");
    if (t.cp > 1)
      out.push_back("ring context parallelism (cp " + std::to_string(t.cp) +
                    ")");
    if (t.pp > 1)
      out.push_back("pipeline parallelism (pp " + std::to_string(t.pp) +
                    "; DeepSpeed's PipelineModule needs the model rewritten "
                    "as layers)");
  }
  return out;
}

std::string join(const std::vector<std::string> &parts,
                 const std::string &last = " and ") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? last : ", ") + parts[i];
  return out;
}

/// The job's plan, or the fastest expressible one plxc judged, with notes.
bool choose(const json &job, Framework f, TrainPlan &chosen,
            std::vector<std::string> &notes) {
  const double predicted = job.value("predicted_step_time_s", 0.0);
  TrainPlan own =
      trainPlan(job["plan"], job["plan"].value("strategy", "plan"), predicted);
  std::vector<std::string> gaps = missing(own, f);
  if (gaps.empty()) {
    chosen = own;
    return true;
  }
  notes.push_back("the plan (" + own.name + ", " + seconds(predicted) +
                  ") cannot be expressed: " + join(gaps));
  if (job.contains("explored"))
    for (const json &e : job["explored"]) {
      if (!e["feasible"].get<bool>() || !e.contains("layout"))
        continue;
      TrainPlan t = trainPlan(e, e["plan"].get<std::string>(),
                              e.value("predicted_step_time_s", 0.0));
      if (!missing(t, f).empty())
        continue;
      char ratio[32];
      std::snprintf(ratio, sizeof(ratio), "%.2fx",
                    predicted > 0 ? t.predicted / predicted : 0.0);
      notes.push_back("the nearest expressible plan plxc judged: " + t.name +
                      ", predicted " + seconds(t.predicted) + " (" + ratio +
                      " the plan's step)" +
                      (e["allowed_by_strategy"].get<bool>()
                           ? ""
                           : "; the job's strategy rules it out: " +
                                 e.value("differs_from_strategy", "")));
      chosen = t;
      return true;
    }
  notes.push_back("no plan plxc judged for this job is expressible");
  return false;
}

void header(std::ostringstream &os, const json &job, const std::string &what,
            const std::string &source) {
  os << "# plxc --emit=" << what << ": " << job["kind"].get<std::string>()
     << " job '" << job["name"].get<std::string>() << "' of " << source << "\n";
}

void notesOut(std::ostringstream &os, const std::vector<std::string> &notes) {
  for (const std::string &n : notes)
    os << "# note: " << n << "\n";
}

/// One flag a line, continued with backslashes.
void command(std::ostringstream &os, const std::vector<std::string> &words) {
  for (size_t i = 0; i < words.size(); ++i)
    os << (i == 0 ? "" : "  ") << words[i]
       << (i + 1 < words.size() ? " \\\n" : "\n");
}

std::string flag(const std::string &name, int64_t value) {
  return name + " " + std::to_string(value);
}

/// The sequence length the framework trains with: the dataset's clamp, or
/// its longest sequence.
int64_t sequenceLength(const json &job) {
  const json &d = job["data"];
  int64_t clamp = integer(d, "clamp");
  if (clamp > 0)
    return clamp;
  if (d.contains("max_length"))
    return integer(d, "max_length");
  if (d.contains("bounds") && !d["bounds"].empty())
    return d["bounds"].back().get<int64_t>();
  return 4096;
}

/// Every sequence the clamp's length (a histogram whose only weighted bin
/// ends at it: Megatron-LM's SC'21 runs).
bool fixedLength(const json &d) {
  if (d.value("source", "") != "histogram" || !d.contains("weights"))
    return false;
  const json &w = d["weights"];
  for (size_t i = 0; i + 1 < w.size(); ++i)
    if (w[i].get<double>() != 0)
      return false;
  return !d["bounds"].empty() &&
         d["bounds"].back().get<int64_t>() == integer(d, "clamp");
}

void megatron(std::ostringstream &os, const json &job,
              const std::string &source) {
  header(os, job, "megatron", source);
  os << "# Megatron-LM pretrain_gpt.py flags (core_r0.13; docs/frameworks.md)"
     << "\n";
  std::vector<std::string> notes;
  TrainPlan t;
  if (!choose(job, Framework::Megatron, t, notes)) {
    notesOut(os, notes);
    return;
  }
  const json &m = job["model"];
  const json &f = job["fabric"];
  const int64_t chips = integer(job, "chips", integer(f, "chips"));
  const int64_t perNode = integer(f, "chips_per_node", 1);
  const int64_t nodes = (chips + perNode - 1) / perNode;
  std::vector<std::string> w = {
      "torchrun " + flag("--nnodes", nodes) + " " +
      flag("--nproc-per-node", std::min(perNode, chips)) + " pretrain_gpt.py"};
  // The model.
  w.push_back(flag("--num-layers", integer(m, "layers")));
  w.push_back(flag("--hidden-size", integer(m, "hidden")));
  w.push_back(flag("--num-attention-heads", integer(m, "heads")));
  if (integer(m, "kv_heads") != integer(m, "heads")) {
    w.push_back("--group-query-attention");
    w.push_back(flag("--num-query-groups", integer(m, "kv_heads")));
  }
  if (integer(m, "head_dim") * integer(m, "heads") != integer(m, "hidden"))
    w.push_back(flag("--kv-channels", integer(m, "head_dim")));
  if (integer(m, "ffn") > 0)
    w.push_back(flag("--ffn-hidden-size", integer(m, "ffn")));
  if (m.value("mlp", "swiglu") == "swiglu")
    w.push_back("--swiglu");
  if (!m.value("tied_embeddings", false))
    w.push_back("--untie-embeddings-and-output-weights");
  if (m["kind"] == "moe") {
    const int64_t layers = integer(m, "layers"),
                  dense = integer(m, "dense_layers");
    w.push_back(flag("--num-experts", integer(m, "experts")));
    w.push_back(flag("--moe-router-topk", integer(m, "top_k")));
    w.push_back(flag("--moe-ffn-hidden-size", integer(m, "moe_ffn")));
    if (integer(m, "shared_experts") > 0)
      w.push_back(flag("--moe-shared-expert-intermediate-size",
                       integer(m, "shared_experts") * integer(m, "moe_ffn")));
    if (dense > 0)
      w.push_back("--moe-layer-freq \"([0]*" + std::to_string(dense) + "+[1]*" +
                  std::to_string(layers - dense) + ")\"");
    w.push_back("--moe-grouped-gemm");
    w.push_back(flag("--expert-model-parallel-size", 1));
    notes.push_back("the plan has no expert parallelism: experts are "
                    "replicated over the data-parallel ranks");
  }
  if (integer(m, "mtp_layers") > 0)
    w.push_back(flag("--mtp-num-layers", integer(m, "mtp_layers")));
  const std::string dtype = m.value("dtype", "bf16");
  w.push_back(dtype == "fp16" ? "--fp16" : "--bf16");
  if (dtype == "fp8")
    w.push_back("--fp8-format hybrid");
  // Megatron-LM trains samples of --seq-length tokens. Every sequence of
  // that length (Megatron-LM's SC'21 specs): the batch's sequences are the
  // samples. Else the plan's packing: step 0's tokens over the data-parallel
  // replicas and the plan's micro-batches make one sample each (never
  // shorter than the longest sequence), rounded up to a multiple of what
  // tensor and context parallelism split.
  const bool fixed = fixedLength(job["data"]);
  const int64_t dp = std::max<int64_t>(1, chips / (t.sp * t.cp * t.tp * t.pp));
  const int64_t perReplica = dp * std::max<int64_t>(1, t.microbatches);
  int64_t seq = sequenceLength(job);
  int64_t samples = integer(job, "batch");
  if (!fixed && job.contains("sequence_lengths") &&
      !job["sequence_lengths"].empty()) {
    int64_t tokens = 0, longest = 0;
    for (const json &n : job["sequence_lengths"]) {
      tokens += n.get<int64_t>();
      longest = std::max(longest, n.get<int64_t>());
    }
    const int64_t unit = std::max<int64_t>(128, 2 * t.sp * t.cp * t.tp);
    seq = std::max((tokens + perReplica - 1) / perReplica, longest);
    seq = (seq + unit - 1) / unit * unit;
    samples = std::max<int64_t>(1, (tokens + seq - 1) / seq);
  }
  w.push_back(flag("--seq-length", seq));
  w.push_back(
      flag("--max-position-embeddings", std::max(seq, sequenceLength(job))));
  const int64_t micro =
      std::max<int64_t>(1, (samples + perReplica - 1) / perReplica);
  w.push_back(flag("--micro-batch-size", micro));
  w.push_back(flag("--global-batch-size", micro * perReplica));
  if (micro * perReplica != samples)
    notes.push_back("--global-batch-size " +
                    std::to_string(micro * perReplica) + " rounds up the " +
                    std::to_string(samples) +
                    (fixed ? " sequences" : " packed samples") + " to " +
                    std::to_string(dp) + " data-parallel replicas x " +
                    std::to_string(std::max<int64_t>(1, t.microbatches)) +
                    " micro-batches x " + std::to_string(micro) + " sample" +
                    (micro > 1 ? "s" : ""));
  if (!fixed)
    notes.push_back(
        "the plan packs the batch's variable-length sequences; Megatron-LM "
        "trains samples of --seq-length " +
        std::to_string(seq) +
        " tokens: the batch sizes count step 0's tokens packed into such "
        "samples (pack the documents, with --reset-position-ids "
        "--reset-attention-mask)");
  // The layout.
  w.push_back(flag("--tensor-model-parallel-size", t.tp));
  if (t.tp > 1)
    w.push_back("--sequence-parallel");
  w.push_back(flag("--pipeline-model-parallel-size", t.pp));
  if (t.vpp > 1)
    w.push_back(flag("--num-layers-per-virtual-pipeline-stage",
                     integer(m, "layers") / (t.pp * t.vpp)));
  // Ulysses is Megatron-LM's all-to-all context parallelism; with ring CP
  // as well, hierarchical: the all-to-all inside, the ring across.
  const int64_t context = t.sp * t.cp;
  w.push_back(flag("--context-parallel-size", context));
  if (t.sp > 1 && t.cp > 1) {
    w.push_back("--cp-comm-type a2a+p2p");
    w.push_back("--hierarchical-context-parallel-sizes " +
                std::to_string(t.sp) + " " + std::to_string(t.cp));
  } else if (t.sp > 1) {
    w.push_back("--cp-comm-type a2a");
  }
  if (t.zero == 3) {
    w.push_back("--use-torch-fsdp2");
    if (t.zeroOnDemand)
      notes.push_back("the plan gathers ZeRO-3 weights on demand "
                      "(zero_prefetch = 0); FSDP2 prefetches one layer ahead "
                      "by default");
  } else if (t.zero >= 1) {
    w.push_back("--use-distributed-optimizer");
  }
  if (t.checkpoint == "selective") {
    w.push_back("--recompute-granularity selective");
  } else if (t.checkpoint == "attention_mlp") {
    w.push_back("--recompute-granularity selective");
    w.push_back("--recompute-modules core_attn mlp");
  } else if (t.checkpoint == "full") {
    w.push_back("--recompute-granularity full");
    if (t.checkpointFirstLayers > 0) {
      w.push_back("--recompute-method block");
      w.push_back(flag("--recompute-num-layers", t.checkpointFirstLayers));
    } else {
      w.push_back("--recompute-method uniform");
      w.push_back(flag("--recompute-num-layers", 1));
    }
  }
  notesOut(os, notes);
  command(os, w);
}

void deepspeed(std::ostringstream &os, const json &job,
               const std::string &source) {
  header(os, job, "deepspeed", source);
  os << "# DeepSpeed ds_config.json (0.17: ZeRO and Ulysses' "
        "sequence_parallel_size; docs/frameworks.md)\n";
  std::vector<std::string> notes;
  TrainPlan t;
  if (!choose(job, Framework::DeepSpeed, t, notes)) {
    notesOut(os, notes);
    return;
  }
  const json &f = job["fabric"];
  const int64_t chips = integer(job, "chips", integer(f, "chips"));
  const int64_t dp = std::max<int64_t>(1, chips / std::max<int64_t>(1, t.sp));
  const int64_t batch = integer(job, "batch");
  const int64_t accumulation = std::max<int64_t>(1, t.microbatches);
  // Sequences per rank and micro-batch: DeepSpeed counts samples, the plan
  // packs sequences by tokens.
  const int64_t micro = std::max<int64_t>(1, (batch + dp * accumulation - 1) /
                                                 (dp * accumulation));
  if (micro * dp * accumulation != batch)
    notes.push_back("train_batch_size is " +
                    std::to_string(micro * dp * accumulation) +
                    " sequences, the job's batch " + std::to_string(batch) +
                    " rounded up to micro-batches of whole sequences on " +
                    std::to_string(dp) + " data-parallel replicas");
  notes.push_back("the plan packs sequences by tokens; DeepSpeed's "
                  "micro-batches hold train_micro_batch_size_per_gpu samples");
  json ds;
  ds["train_batch_size"] = micro * dp * accumulation;
  ds["train_micro_batch_size_per_gpu"] = micro;
  ds["gradient_accumulation_steps"] = accumulation;
  json zero;
  zero["stage"] = t.zero;
  if (t.zero == 3) {
    zero["overlap_comm"] = true;
    // On demand: no parameters fetched ahead of the layer that needs them.
    if (t.zeroOnDemand)
      zero["stage3_prefetch_bucket_size"] = 0;
  }
  ds["zero_optimization"] = zero;
  const std::string dtype = job["model"].value("dtype", "bf16");
  if (dtype == "fp16")
    ds["fp16"] = {{"enabled", true}};
  else
    ds["bf16"] = {{"enabled", true}};
  ds["sequence_parallel_size"] = t.sp;
  if (t.checkpoint != "none") {
    ds["activation_checkpointing"] = {{"partition_activations", false},
                                      {"contiguous_memory_optimization", false},
                                      {"cpu_checkpointing", false}};
    notes.push_back(
        "checkpoint = " + t.checkpoint +
        (t.checkpointFirstLayers > 0
             ? " on the first " + std::to_string(t.checkpointFirstLayers) +
                   " layers"
             : std::string()) +
        ": wrap those modules in deepspeed.checkpointing.checkpoint (the "
        "config turns the machinery on, the model code chooses what)");
  }
  notesOut(os, notes);
  os << ds.dump(2) << "\n";
}

/// The serve plan's settings; false (with notes) when nothing to emit.
struct ServePlan {
  int64_t pp = 1, ep = 1, instances = 1, chips = 0, mtp = 0, interval = 0;
  bool dpAttention = false, kvRouting = false;
};

ServePlan servePlan(const json &job) {
  ServePlan s;
  const json &l = job["layout"];
  s.pp = integer(l, "pp", 1);
  s.ep = integer(l, "ep", 1);
  s.instances = integer(l, "instances", 1);
  s.chips = integer(l, "chips");
  s.dpAttention = l.value("dp_attention", false);
  s.kvRouting = l.value("dp_routing", "") == "kv_aware";
  if (job.contains("policy")) {
    s.mtp = integer(job["policy"], "mtp_drafts");
    s.interval = integer(job["policy"], "interval");
  }
  return s;
}

void serveNotes(std::vector<std::string> &notes, const ServePlan &s,
                const std::string &router) {
  if (s.instances > 1)
    notes.push_back("the plan runs " + std::to_string(s.instances) +
                    " such instances of " + std::to_string(s.pp * s.ep) +
                    " GPUs; put " + router + " in front of them");
  if (s.interval > 1)
    notes.push_back("PipeSwift's wave interval (" + std::to_string(s.interval) +
                    " decode steps between prefill waves) has no flag; the "
                    "server interleaves prefill by its own scheduler");
}

void sglang(std::ostringstream &os, const json &job,
            const std::string &source) {
  header(os, job, "sglang", source);
  os << "# SGLang server arguments (0.5; docs/frameworks.md); MODEL: the "
        "checkpoint of model '"
     << job["model"]["name"].get<std::string>() << "'\n";
  const ServePlan s = servePlan(job);
  const int64_t perNode = integer(job["fabric"], "chips_per_node", 1);
  const int64_t gpus = s.pp * s.ep;
  std::vector<std::string> notes;
  serveNotes(notes, s,
             s.kvRouting ? "sglang_router (--policy cache_aware)"
                         : "sglang_router");
  std::vector<std::string> w = {"python3 -m sglang.launch_server",
                                "--model-path MODEL"};
  // Each pipeline stage's GPUs run the experts (EP) and, with DP
  // attention, each its own requests' attention.
  w.push_back(flag("--tp-size", s.ep));
  w.push_back(flag("--ep-size", s.ep));
  if (s.pp > 1)
    w.push_back(flag("--pp-size", s.pp));
  if (s.dpAttention) {
    w.push_back("--enable-dp-attention");
    w.push_back(flag("--dp-size", s.ep));
  }
  if (s.mtp > 0) {
    w.push_back("--speculative-algorithm NEXTN");
    w.push_back(flag("--speculative-num-steps", s.mtp));
    w.push_back(flag("--speculative-eagle-topk", 1));
    w.push_back(flag("--speculative-num-draft-tokens", s.mtp + 1));
  }
  if (gpus > perNode) {
    w.push_back(flag("--nnodes", (gpus + perNode - 1) / perNode));
    w.push_back("--node-rank $NODE_RANK");
    w.push_back("--dist-init-addr $MASTER_ADDR:5000");
  }
  notesOut(os, notes);
  command(os, w);
}

void vllm(std::ostringstream &os, const json &job, const std::string &source) {
  header(os, job, "vllm", source);
  os << "# vLLM serve arguments (0.11; docs/frameworks.md); MODEL: the "
        "checkpoint of model '"
     << job["model"]["name"].get<std::string>() << "'\n";
  const ServePlan s = servePlan(job);
  std::vector<std::string> notes;
  serveNotes(notes, s, "a load balancer");
  std::vector<std::string> w = {"vllm serve MODEL"};
  if (s.dpAttention) {
    // vLLM's DP attention: data-parallel attention ranks, experts sharded
    // over them.
    w.push_back(flag("--data-parallel-size", s.ep));
    w.push_back(flag("--tensor-parallel-size", 1));
  } else {
    w.push_back(flag("--tensor-parallel-size", s.ep));
  }
  if (s.ep > 1)
    w.push_back("--enable-expert-parallel");
  if (s.pp > 1)
    w.push_back(flag("--pipeline-parallel-size", s.pp));
  if (s.mtp > 0)
    w.push_back("--speculative-config '{\"method\": \"mtp\", "
                "\"num_speculative_tokens\": " +
                std::to_string(s.mtp) + "}'");
  if (s.kvRouting)
    notes.push_back("the plan routes requests by KV load; vLLM's data-parallel "
                    "ranks balance by queue length");
  if (s.pp > 1 && s.pp * s.ep > integer(job["fabric"], "chips_per_node", 1))
    notes.push_back("pipeline stages on several nodes: start a Ray cluster "
                    "across them first (vLLM's multi-node pipelines run on "
                    "Ray)");
  notesOut(os, notes);
  command(os, w);
}

} // namespace

std::string plexus::report::frameworkLaunch(const json &report,
                                            Framework framework,
                                            const std::string &source) {
  std::ostringstream os;
  const bool training =
      framework == Framework::Megatron || framework == Framework::DeepSpeed;
  const char *name = framework == Framework::Megatron    ? "megatron"
                     : framework == Framework::DeepSpeed ? "deepspeed"
                     : framework == Framework::SGLang    ? "sglang"
                                                         : "vllm";
  bool first = true;
  for (const json &job : report["jobs"]) {
    if (!first)
      os << "\n";
    first = false;
    const std::string kind = job["kind"].get<std::string>();
    if ((kind == "train") != training) {
      os << "# plxc --emit=" << name << ": " << kind << " job '"
         << job["name"].get<std::string>() << "' skipped: " << name << " runs "
         << (training ? "train" : "serve") << " jobs\n";
      continue;
    }
    if (training && !job.contains("plan")) {
      os << "# plxc --emit=" << name << ": train job '"
         << job["name"].get<std::string>() << "' has no plan"
         << (job.contains("error") ? ": " + job["error"].get<std::string>()
             : job.contains("not_planned")
                 ? ": " + job["not_planned"].get<std::string>()
                 : std::string())
         << "\n";
      continue;
    }
    if (!training && !job.contains("layout")) {
      os << "# plxc --emit=" << name << ": serve job '"
         << job["name"].get<std::string>() << "' has no plan\n";
      continue;
    }
    switch (framework) {
    case Framework::Megatron:
      megatron(os, job, source);
      break;
    case Framework::DeepSpeed:
      deepspeed(os, job, source);
      break;
    case Framework::SGLang:
      sglang(os, job, source);
      break;
    case Framework::Vllm:
      vllm(os, job, source);
      break;
    }
  }
  if (first)
    os << "# plxc --emit=" << name << ": the spec has no job\n";
  return os.str();
}
