//===- SpecReport.cpp - What a checked spec declares, for people ----------===//
#include "codegen/Report/SpecReport.h"

#include "dialects/Common/ByteText.h"

#include "codegen/Report/FabricReport.h"
#include "dialects/Plx/IR/PlxDialect.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace plexus;
using json = nlohmann::ordered_json;

std::string report::formatCount(double count) {
  const char *suffix[] = {"", " K", " M", " B", " T"};
  int i = 0;
  while (std::fabs(count) >= 1000.0 && i < 4) {
    count /= 1000.0;
    ++i;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), i == 0 ? "%.0f%s" : "%.2f%s", count,
                suffix[i]);
  return buffer;
}

std::string report::formatDecimal(double value, const std::string &unit) {
  const char *prefix[] = {"", "K", "M", "G", "T", "P", "E"};
  int i = 0;
  while (std::fabs(value) >= 1000.0 && i < 6) {
    value /= 1000.0;
    ++i;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.4g %s%s", value, prefix[i],
                unit.c_str());
  return buffer;
}

static const char *dtypeName(cost::DType d) {
  switch (d) {
  case cost::DType::BF16:
    return "bf16";
  case cost::DType::FP16:
    return "fp16";
  case cost::DType::FP8:
    return "fp8";
  case cost::DType::FP32:
    return "fp32";
  }
  return "bf16";
}

static json modelJson(plx::ModelOp model) {
  cost::TransformerShape s = model.getShape().toShape();
  json j;
  j["name"] = model.getSymName().str();
  j["kind"] = s.isMoE() ? "moe" : "dense";
  j["parameters"] = cost::totalParameters(s);
  j["active_parameters"] = cost::activeParameters(s);
  j["layers"] = s.layers;
  j["hidden"] = s.hidden;
  j["heads"] = s.heads;
  j["kv_heads"] = s.kvHeads;
  j["head_dim"] = s.headDim;
  j["ffn"] = s.ffn;
  j["vocab"] = s.vocab;
  if (s.isMoE()) {
    j["experts"] = s.experts;
    j["top_k"] = s.topK;
    j["shared_experts"] = s.sharedExperts;
    j["moe_ffn"] = s.moeFfn;
    j["dense_layers"] = s.denseLayers;
  }
  j["mtp_layers"] = s.mtpLayers;
  j["dtype"] = dtypeName(s.dtype);
  j["weight_bytes"] = cost::totalParameters(s) * cost::bytesPerElement(s.dtype);
  j["mlp"] = s.mlp == cost::MlpKind::GeLU ? "gelu" : "swiglu";
  j["tied_embeddings"] = s.tiedEmbeddings;
  return j;
}

static json datasetJson(plx::DatasetOp data) {
  json j;
  j["name"] = data.getSymName().str();
  llvm::TypeSwitch<Attribute>(data.getSource())
      .Case([&](plx::LengthsFileAttr a) {
        j["source"] = "lengths_file";
        j["path"] = a.getPath().str();
        j["sequences"] = a.getCount();
        j["max_length"] = a.getMax();
      })
      .Case([&](plx::LognormalAttr a) {
        j["source"] = "lognormal";
        j["mu"] = a.getMu().value;
        j["sigma"] = a.getSigma().value;
      })
      .Case([&](plx::HistogramAttr a) {
        j["source"] = "histogram";
        j["bounds"] =
            std::vector<int64_t>(a.getBounds().begin(), a.getBounds().end());
        std::vector<double> weights;
        for (plx::Real w : a.getWeights())
          weights.push_back(w);
        j["weights"] = weights;
      });
  j["clamp"] = data.getClamp();
  j["padding"] = data.getPadding();
  j["overlong"] = stringifyOverlong(data.getOverlong()).str();
  return j;
}

static json workloadJson(plx::WorkloadOp work) {
  json j;
  j["name"] = work.getSymName().str();
  llvm::TypeSwitch<Attribute>(work.getSource())
      .Case([&](plx::TrajectoriesAttr a) {
        j["source"] = "trajectories";
        j["path"] = a.getPath().str();
        j["tasks"] = a.getTasks();
        j["concurrency"] = a.getConcurrency();
      })
      .Case([&](plx::SyntheticAgentAttr a) {
        j["source"] = "synthetic";
        j["preset"] = stringifyAgentPreset(a.getPreset()).str();
        j["tasks"] = a.getTasks();
        j["concurrency"] = a.getConcurrency();
        j["turns"] = a.getTurns();
        j["prompt_tokens"] = a.getPrompt();
        j["new_tokens"] = a.getNewTokens();
        j["output_tokens"] = a.getOutputTokens();
        j["tool_latency_s"] = a.getToolLatency().value;
        j["max_len"] = a.getMaxLen();
      });
  return j;
}

static json fabricJson(plx::FabricOp fabric) {
  plx::ChipAttr chip = fabric.getChip();
  json j;
  j["name"] = fabric.getSymName().str();
  j["chip"] = chip.getName().str();
  j["chips"] = fabric.getChips();
  j["nodes"] = fabric.getNodes();
  j["chips_per_node"] = fabric.getChipsPerNode();
  j["chip_memory_bytes"] = chip.getHbmBytes();
  j["chip_bf16_flops"] = chip.getBf16Flops().value;
  j["chip_fp8_flops"] = chip.getFp8Flops().value;
  j["chip_memory_bandwidth_bytes_per_s"] = chip.getHbmBandwidth().value;
  j["intra_node"] = stringifyIntraNode(fabric.getIntraNode()).str();
  j["intra_node_bandwidth_bytes_per_s"] = fabric.getIntraNodeBandwidth();
  json topo;
  llvm::TypeSwitch<Attribute>(fabric.getTopology())
      .Case([&](plx::RailXAttr a) {
        topo["kind"] = "railx";
        topo["rows"] = a.getRows();
        topo["cols"] = a.getCols();
        topo["rails"] = a.getRails();
        topo["directed"] = a.getDirected();
        topo["link_bandwidth_bytes_per_s"] = a.getLinkBandwidth().value;
      })
      .Case([&](plx::FatTreeAttr a) {
        topo["kind"] = "fat_tree";
        topo["radix"] = a.getRadix();
        topo["tiers"] = a.getTiers();
        topo["oversubscription"] = a.getOversubscription().value;
        topo["link_bandwidth_bytes_per_s"] = a.getLinkBandwidth().value;
      })
      .Case([&](plx::RailOptimizedAttr a) {
        topo["kind"] = "rail_optimized";
        topo["rails"] = a.getRails();
        topo["radix"] = a.getRadix();
        topo["oversubscription"] = a.getOversubscription().value;
        topo["link_bandwidth_bytes_per_s"] = a.getLinkBandwidth().value;
      })
      .Case([&](plx::TorusAttr a) {
        topo["kind"] = "torus";
        topo["dims"] =
            std::vector<int64_t>(a.getDims().begin(), a.getDims().end());
        topo["link_bandwidth_bytes_per_s"] = a.getLinkBandwidth().value;
      });
  j["topology"] = topo;
  return j;
}

template <typename OpT>
static OpT lookup(ModuleOp module, FlatSymbolRefAttr ref) {
  return dyn_cast_or_null<OpT>(SymbolTable::lookupSymbolIn(module, ref));
}

json report::specReportJson(ModuleOp module, const json &predictions) {
  json jobs = json::array();
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto train = dyn_cast<plx::TrainOp>(op)) {
      json j;
      j["name"] = train.getSymName().str();
      j["kind"] = "train";
      j["batch"] = train.getBatch();
      j["steps"] = train.getSteps();
      j["seed"] = train.getSeed();
      j["model"] =
          modelJson(lookup<plx::ModelOp>(module, train.getModelAttr()));
      j["data"] =
          datasetJson(lookup<plx::DatasetOp>(module, train.getDataAttr()));
      auto fabric = lookup<plx::FabricOp>(module, train.getFabricAttr());
      j["fabric"] = fabricJson(fabric);
      if (fabric)
        j["chips"] = train.getJobChips(fabric);
      auto it = predictions.find(train.getSymName().str());
      if (it != predictions.end())
        for (const auto &[key, value] : it->items())
          j[key] = value;
      jobs.push_back(std::move(j));
    } else if (auto serve = dyn_cast<plx::ServeOp>(op)) {
      json j;
      j["name"] = serve.getSymName().str();
      j["kind"] = "serve";
      j["seed"] = serve.getSeed();
      j["model"] =
          modelJson(lookup<plx::ModelOp>(module, serve.getModelAttr()));
      j["workload"] = workloadJson(
          lookup<plx::WorkloadOp>(module, serve.getWorkloadAttr()));
      auto fabric = lookup<plx::FabricOp>(module, serve.getFabricAttr());
      j["fabric"] = fabricJson(fabric);
      if (fabric)
        j["chips"] = serve.getJobChips(fabric);
      auto it = predictions.find(serve.getSymName().str());
      if (it != predictions.end())
        for (const auto &[key, value] : it->items())
          j[key] = value;
      jobs.push_back(std::move(j));
    }
  }
  json root;
  root["jobs"] = std::move(jobs);
  // The network each fabric builds: diameter, bisection, cost.
  // Each fabric is analysed once; "fabric" repeats the primary one's entry.
  json fabrics = json::array();
  plx::FabricOp primary = primaryFabric(module);
  for (auto fabric : module.getOps<plx::FabricOp>()) {
    fabrics.push_back(fabricAnalysisJson(fabric));
    if (fabric == primary)
      root["fabric"] = fabrics.back();
  }
  root["fabrics"] = std::move(fabrics);
  return root;
}

static void printFabricAnalysis(const json &f, std::ostream &os) {
  os << "network " << f["name"].get<std::string>() << ": "
     << f["topology"].get<std::string>() << ", " << f["chips"].get<int64_t>()
     << " chips";
  if (f.contains("error")) {
    os << " (not analysed: " << f["error"].get<std::string>() << ")\n";
    return;
  }
  os << ", diameter " << f["diameter_hops"].get<int64_t>()
     << " inter-node hops, bisection "
     << report::formatDecimal(
            f["bisection_bandwidth_bytes_per_s"].get<double>(), "B/s");
  if (f.contains("cost_usd")) {
    // What the ratios compare, in words: this network's dollars per unit
    // of bandwidth over those of a non-blocking fat-tree that gives the
    // same chips the same injection bandwidth (passes/Fabric/NetworkCost.h).
    char ratio[320];
    std::snprintf(ratio, sizeof(ratio),
                  "; per unit of bandwidth it costs %.3g x a non-blocking "
                  "fat-tree of the same chips and injection bandwidth ($ per "
                  "injection B/s) and %.3g x ($ per bisection B/s)",
                  f["fat_tree_ratio"]["injection"].get<double>(),
                  f["fat_tree_ratio"]["bisection"].get<double>());
    os << ", injection "
       << report::formatDecimal(
              f["injection_bandwidth_per_chip_bytes_per_s"].get<double>(),
              "B/s")
       << " per chip and direction, network cost $"
       << report::formatDecimal(f["cost_usd"].get<double>(), "") << " at "
       << (f["prices"].get<std::string>() == "spec" ? "the spec's" : "default")
       << " prices" << ratio;
  }
  os << "\n";
}

/// "8.12 s", "412 ms": a duration for people.
static std::string secondsText(double s) {
  char buffer[48];
  if (s < 1e-9) // rounding noise of sums of spans
    return "0 s";
  if (s >= 1000) { // 4,520 s rather than 4.52e+03 s
    std::string digits = std::to_string(std::llround(s)), grouped;
    for (size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0)
        grouped += ',';
      grouped += digits[i];
    }
    return grouped + " s";
  }
  if (s >= 1)
    std::snprintf(buffer, sizeof(buffer), "%.3g s", s);
  else
    std::snprintf(buffer, sizeof(buffer), "%.3g ms", s * 1e3);
  return buffer;
}

static std::string layoutText(const json &layout) {
  std::string text;
  for (const char *key : {"sp", "tp", "cp", "pp"}) {
    if (layout[key].is_string()) { // chosen per group
      text += (text.empty() ? "" : " x ") + std::string(key) + " " +
              layout[key].get<std::string>();
      continue;
    }
    int64_t v = layout[key].get<int64_t>();
    if (v > 1)
      text += (text.empty() ? "" : " x ") + std::string(key) + " " +
              std::to_string(v);
  }
  return text.empty() ? "data parallel only" : text;
}

/// The prediction lines of one train job.
/// `plxc --explore`: every plan judged for step 0, ranked, each with its
/// predicted step, MFU and peak memory against the usable memory, or why
/// it cannot run; the plan is marked '*', a layout the strategy rules out
/// says which choice it breaks.
static void printExploration(const json &job, std::ostream &os) {
  const json &explored = job["explored"];
  const double usable = job.contains("memory")
                            ? job["memory"]["usable_bytes"].get<double>()
                            : 0.0;
  size_t width = 4;
  for (const json &e : explored)
    width = std::max(width, e["plan"].get<std::string>().size());
  os << "  explored " << explored.size()
     << " plans for step 0, fastest first ('*' is the plan";
  if (usable > 0)
    os << "; memory against the " << report::formatDecimal(usable, "B")
       << " usable per chip";
  os << ")\n";
  char line[512];
  std::snprintf(
      line, sizeof(line), "           %4s  %-*s  %-9s  %9s  %6s  %9s\n", "rank",
      static_cast<int>(width), "plan", "role", "step", "MFU", "memory");
  os << line;
  size_t rank = 0;
  for (const json &e : explored) {
    const std::string name = e["plan"].get<std::string>();
    const std::string role = e["role"].get<std::string>();
    const bool chosen = e["chosen"].get<bool>();
    char number[16];
    if (e["feasible"].get<bool>())
      std::snprintf(number, sizeof(number), "%s%zu", chosen ? "*" : "", ++rank);
    else
      std::snprintf(number, sizeof(number), "-");
    std::string step = "", mfu = "", memory = "";
    if (e.contains("predicted_step_time_s"))
      step = secondsText(e["predicted_step_time_s"].get<double>());
    if (e.contains("mfu") && e["mfu"].is_number()) {
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.1f %%",
                    100 * e["mfu"].get<double>());
      mfu = buffer;
    }
    if (e.contains("peak_memory_bytes")) // one decimal: the column reads down
      memory = bytesText(e["peak_memory_bytes"].get<double>());
    std::snprintf(line, sizeof(line),
                  "           %4s  %-*s  %-9s  %9s  %6s  %9s", number,
                  static_cast<int>(width), name.c_str(), role.c_str(),
                  step.c_str(), mfu.c_str(), memory.c_str());
    os << line;
    if (!e["feasible"].get<bool>())
      os << "  infeasible: " << e["why_not"].get<std::string>();
    else if (!e["allowed_by_strategy"].get<bool>())
      os << "  ruled out by the strategy: "
         << e["differs_from_strategy"].get<std::string>();
    os << "\n";
  }
}

static void printPrediction(const json &job, std::ostream &os, bool explore) {
  const json &plan = job["plan"];
  os << "  plan     " << plan["strategy"].get<std::string>() << ": "
     << layoutText(plan["layout"]) << ", ZeRO-" << plan["zero"].get<int64_t>();
  if (plan.contains("zero_prefetch"))
    os << " gathered on demand";
  os << ", ";
  if (plan.contains("checkpoint")) {
    const std::string c = plan["checkpoint"].get<std::string>();
    os << (c == "none" ? std::string("no") : c) << " checkpointing";
    if (plan.contains("checkpoint_first_layers"))
      os << " of the first " << plan["checkpoint_first_layers"].get<int64_t>()
         << " layers";
    os << ", ";
  }
  if (plan.contains("pipelines")) {
    const int64_t n = plan["pipelines"].get<int64_t>();
    os << n << (n == 1 ? " 1F1B pipeline" : " 1F1B pipelines") << " of "
       << plan["chunks"].get<int64_t>() << " chunks (step 0)\n";
  } else {
    os << plan["microbatches"].get<int64_t>()
       << (plan["microbatches"].get<int64_t>() == 1 ? " micro-batch"
                                                    : " micro-batches")
       << " (step 0)\n";
  }
  if (plan.contains("note"))
    os << "  note     " << plan["note"].get<std::string>() << "\n";
  if (job.contains("replicas")) {
    const json &r = job["replicas"];
    char imbalance[32];
    std::snprintf(imbalance, sizeof(imbalance), "%.3f",
                  r["heaviest_share_flops_over_mean"].get<double>());
    const json &seqs = r["sequences_per_replica"];
    os << "  replicas " << r["replica_count"].get<int64_t>()
       << " data-parallel replicas of " << r["ranks_per_replica"].get<int64_t>()
       << " ranks (" << r["job_ranks"].get<int64_t>()
       << " in all), each planned and simulated as the one running the "
          "heaviest share: "
       << seqs[0].get<int64_t>() << "-" << seqs[1].get<int64_t>()
       << " sequences a replica, heaviest/mean FLOPs " << imbalance
       << "; the step ends with the gradient all-reduce across replicas\n";
  }
  // Each pipeline of step 0: its chunks by kind, its longest sequence's
  // chunk count and the layers it recomputes.
  if (job.contains("pipelines")) {
    const json &pipes = job["pipelines"];
    for (size_t i = 0; i < pipes.size(); ++i) {
      int64_t kinds[3] = {0, 0, 0}; // packed, split, hybrid
      for (const json &c : pipes[i]["chunks"]) {
        const std::string kind = c["kind"].get<std::string>();
        ++kinds[kind == "packed" ? 0 : kind == "split" ? 1 : 2];
      }
      int64_t recomputed = 0;
      for (const json &stage : pipes[i]["checkpoint_layers"])
        for (const json &l : stage)
          recomputed += l.get<int64_t>();
      char bubble[32];
      std::snprintf(bubble, sizeof(bubble), "%.1f %%",
                    100 * pipes[i]["planned_bubble_ratio"].get<double>());
      os << "           pipeline " << i << ": " << pipes[i]["chunks"].size()
         << " chunks (" << kinds[0] << " packed, " << kinds[1] << " split, "
         << kinds[2] << " hybrid), " << recomputed
         << " layer recomputes, planned "
         << secondsText(pipes[i]["planned_time_s"].get<double>()) << " with "
         << bubble << " bubble\n";
    }
  }
  // The groups of each micro-batch of step 0, e.g. <32, 8x4>: one degree
  // per group, repeats counted.
  if (job.contains("microbatches")) {
    const json &mbs = job["microbatches"];
    constexpr size_t kShown = 8;
    for (size_t i = 0; i < mbs.size() && i < kShown; ++i) {
      std::vector<std::pair<int64_t, int64_t>> runs; // (degree, count)
      int64_t idle = 0;
      for (const json &g : mbs[i]["sp_groups"]) {
        if (g["sequences"].empty()) {
          ++idle;
          continue;
        }
        int64_t d = g["degree"].get<int64_t>();
        if (!runs.empty() && runs.back().first == d)
          ++runs.back().second;
        else
          runs.push_back({d, 1});
      }
      os << "           micro-batch " << i << ": <";
      for (size_t k = 0; k < runs.size(); ++k)
        os << (k ? ", " : "") << runs[k].first
           << (runs[k].second > 1 ? "x" + std::to_string(runs[k].second) : "");
      os << ">";
      if (idle > 0)
        os << " and " << idle << " idle group" << (idle > 1 ? "s" : "");
      os << "\n";
    }
    if (mbs.size() > kShown)
      os << "           ... " << mbs.size() - kShown
         << " more micro-batches (--report=json lists them)\n";
  }
  // The train pipeline simulates every plan it reports.
  os << "  step     ";
  {
    os << "predicted "
       << secondsText(job["predicted_step_time_s"].get<double>())
       << " (planned " << secondsText(job["planned_step_time_s"].get<double>());
    if (job.contains("surrogate_step_time_s"))
      os << ", surrogate "
         << secondsText(job["surrogate_step_time_s"].get<double>());
    os << ")";
    if (!job["mfu"].is_null()) {
      char mfu[32];
      std::snprintf(mfu, sizeof(mfu), "%.1f %%",
                    100 * job["mfu"].get<double>());
      os << ", MFU " << mfu;
    }
    int64_t peak = 0;
    for (const json &b : job["peak_memory_bytes"])
      peak = std::max(peak, b.get<int64_t>());
    os << ", peak memory "
       << report::formatDecimal(static_cast<double>(peak), "B")
       << " on the busiest rank\n";
    const json &split = job["time_split"];
    os << "           per rank: compute "
       << secondsText(split["compute_s"].get<double>());
    if (split.contains("recompute_s") && split["recompute_s"].get<double>() > 0)
      os << " (recompute " << secondsText(split["recompute_s"].get<double>())
         << ")";
    os << ", communication "
       << secondsText(split["communication_s"].get<double>()) << ", bubble "
       << secondsText(split["bubble_s"].get<double>());
    if (job.contains("bubble_ratio")) {
      char ratio[32];
      std::snprintf(ratio, sizeof(ratio), "%.1f %%",
                    100 * job["bubble_ratio"].get<double>());
      os << " (" << ratio << ")";
    }
    os << "\n";
  }
  if (job.contains("memory")) {
    const json &m = job["memory"];
    const double chip = m["chip_bytes"].get<double>(),
                 reserve = m["reserve_bytes"].get<double>(),
                 usable = m["usable_bytes"].get<double>();
    os << "  memory   peak "
       << report::formatDecimal(m["peak_bytes"].get<double>(), "B")
       << " on rank " << m["peak_rank"].get<int64_t>() << " of "
       << report::formatDecimal(usable, "B") << " usable per chip ("
       << (usable < chip - reserve ? "the memory_limit; " : "")
       << report::formatDecimal(chip, "B") << " HBM less a "
       << report::formatDecimal(reserve, "B") << " reserve)\n";
    if (m.contains("at_peak")) {
      const json &a = m["at_peak"];
      auto part = [&](const char *key) {
        return report::formatDecimal(a[key].get<double>(), "B");
      };
      os << "           at the peak: weights " << part("weights_bytes")
         << ", gradients " << part("gradients_bytes") << ", optimizer states "
         << part("optimizer_bytes");
      if (a["zero3_gathered_bytes"].get<double>() > 0)
        os << ", ZeRO-3 gathered " << part("zero3_gathered_bytes");
      os << ", activations and logits " << part("activations_bytes") << "\n";
    }
  }
  if (job.contains("lower_bound")) {
    const json &b = job["lower_bound"];
    char efficiency[32];
    std::snprintf(efficiency, sizeof(efficiency), "%.1f %%",
                  100 * job["efficiency"].get<double>());
    os << "  bound    "
       << secondsText(b["step_time_s"].get<double>())
       << " = max(compute "
       << secondsText(b["terms"]["compute_s"].get<double>())
       << ", gradient sync "
       << secondsText(b["terms"]["gradient_sync_s"].get<double>())
       << "); efficiency " << efficiency << " (bound / predicted)\n";
  }
  if (explore && job.contains("explored")) {
    printExploration(job, os);
  } else {
    os << "  baselines (step time, predicted)\n";
    for (const auto &[name, b] : job["baselines"].items()) {
      char padded[40];
      std::snprintf(padded, sizeof(padded), "%-22s", name.c_str());
      os << "           " << padded;
      if (b.contains("infeasible"))
        os << "infeasible: " << b["infeasible"].get<std::string>() << "\n";
      else if (b.contains("predicted_step_time_s"))
        os << secondsText(b["predicted_step_time_s"].get<double>()) << "\n";
      else
        os << secondsText(b["planned_step_time_s"].get<double>()) << "\n";
    }
  }
  // A faster plan the strategy rules out is said out loud.
  if (job.contains("faster_baselines"))
    for (const json &f : job["faster_baselines"]) {
      char ratio[32];
      std::snprintf(ratio, sizeof(ratio), "%.2fx",
                    f["ratio"].get<double>());
      os << "  note     " << f["name"].get<std::string>() << " is " << ratio
         << " faster than the plan, but the strategy rules it out: "
         << f["why"].get<std::string>() << "\n";
    }
}

/// "overall 2,482 s (turns: mean 41.2 s, P50 ..., P99 ...)".
static std::string jctText(const json &jct) {
  return "overall " + secondsText(jct["overall_s"].get<double>()) +
         " (turns: mean " + secondsText(jct["turn_mean_s"].get<double>()) +
         ", P50 " + secondsText(jct["turn_p50_s"].get<double>()) + ", P90 " +
         secondsText(jct["turn_p90_s"].get<double>()) + ", P99 " +
         secondsText(jct["turn_p99_s"].get<double>()) + ")";
}

/// The plan and replay lines of one serve job.
static void printServePrediction(const json &job, std::ostream &os) {
  const json &l = job["layout"];
  const json &p = job["policy"];
  os << "  layout   " << l["instances"].get<int64_t>() << " x (pp "
     << l["pp"].get<int64_t>() << " x ep " << l["ep"].get<int64_t>()
     << (l["dp_attention"].get<bool>() ? ", DP-attention" : ", TP attention")
     << (l["dp_routing"].get<std::string>() == "kv_aware" ? " routed by KV load"
                                                          : "")
     << ") on " << l["chips"].get<int64_t>() << " chips";
  // What the planner chose rather than the strategy: "(pp, ep and
  // attention chosen for the workload)".
  std::vector<std::string> chosen;
  for (const char *key : {"pp", "ep", "attention"})
    if (l[std::string(key) + "_chosen"].get<bool>())
      chosen.push_back(key);
  if (!chosen.empty()) {
    os << " (";
    for (size_t i = 0; i < chosen.size(); ++i)
      os << (i == 0                   ? ""
             : i + 1 == chosen.size() ? " and "
                                      : ", ")
         << chosen[i];
    os << " chosen for the workload)";
  }
  os << ", layers per stage ";
  const json &layers = l["layers_per_stage"];
  for (size_t i = 0; i < layers.size(); ++i)
    os << (i ? "/" : "") << layers[i].get<int64_t>();
  os << "\n";
  os << "  policy   prefill wave every " << p["interval"].get<int64_t>()
     << " decode rounds"
     << (p["interval_chosen"].get<bool>() ? " (chosen for the workload)" : "")
     << ", MTP " << p["mtp_drafts"].get<int64_t>() << " draft(s)\n";
  os << "  jct      " << jctText(job["jct"]);
  if (!job["completed"].get<bool>())
    os << ", incomplete: " << job["incomplete"].get<std::string>();
  os << "\n";
  os << "  baselines (job completion time, replayed)\n";
  const double mine = job["jct"]["overall_s"].get<double>();
  for (const auto &[name, b] : job["baselines"].items()) {
    char padded[40];
    std::snprintf(padded, sizeof(padded), "%-22s", name.c_str());
    os << "           " << padded;
    if (b.contains("infeasible")) {
      os << "infeasible: " << b["infeasible"].get<std::string>() << "\n";
      continue;
    }
    const double theirs = b["jct"]["overall_s"].get<double>();
    char ratio[32];
    std::snprintf(ratio, sizeof(ratio), "%.2f", mine > 0 ? theirs / mine : 0);
    const int64_t chips = b["chips"].get<int64_t>(),
                  planChips = job["layout"]["chips"].get<int64_t>();
    os << secondsText(theirs) << " on " << chips << " chips (" << ratio
       << " x the plan's";
    if (chips != planChips && planChips > 0 && mine > 0) {
      // A baseline on other chips: compare chip-seconds too.
      char perChip[32];
      std::snprintf(perChip, sizeof(perChip), "%.2f",
                    theirs * double(chips) / (mine * double(planChips)));
      os << " on " << chips << " chips against the plan's " << planChips
         << "; " << perChip << " x its chip-seconds";
    }
    os << ")";
    if (!b["completed"].get<bool>())
      os << ", incomplete: " << b["incomplete"].get<std::string>();
    os << "\n";
  }
  // One judge: a baseline that finishes the job sooner on no more chips is
  // said out loud, with what kept the plan from its layout
  // (servejob::servePredictionJson's faster_baselines).
  if (job.contains("faster_baselines"))
    for (const json &f : job["faster_baselines"]) {
      char ratio[32];
      std::snprintf(ratio, sizeof(ratio), "%.2f", f["ratio"].get<double>());
      os << "  note     " << f["name"].get<std::string>()
         << " finishes the job " << ratio << "x faster than the plan; "
         << f["why"].get<std::string>() << "\n";
    }
}

void report::printSpecReport(ModuleOp module, std::ostream &os,
                             const json &predictions,
                             const TextReportOptions &options) {
  json root = specReportJson(module, predictions);
  if (root["jobs"].empty()) {
    os << "The spec declares no train or serve job.\n";
    for (const json &f : root["fabrics"])
      printFabricAnalysis(f, os);
    return;
  }
  for (const json &job : root["jobs"]) {
    const json &m = job["model"];
    const json &f = job["fabric"];
    os << job["kind"].get<std::string>() << " job '"
       << job["name"].get<std::string>() << "'";
    if (job.contains("chips") && job["chips"].is_number_integer())
      os << " on " << job["chips"].get<int64_t>() << " chips";
    os << "\n";
    os << "  model    " << m["name"].get<std::string>() << ": "
       << m["kind"].get<std::string>() << ", "
       << formatCount(m["parameters"].get<double>()) << " parameters";
    if (m["kind"] == "moe")
      os << " (" << formatCount(m["active_parameters"].get<double>())
         << " active, " << m["experts"].get<int64_t>() << " experts top-"
         << m["top_k"].get<int64_t>() << ")";
    os << ", " << m["layers"].get<int64_t>() << " layers, hidden "
       << m["hidden"].get<int64_t>() << ", " << m["heads"].get<int64_t>()
       << " heads (" << m["kv_heads"].get<int64_t>() << " kv), "
       << m["dtype"].get<std::string>() << "\n";
    if (job.contains("data")) {
      const json &d = job["data"];
      os << "  data     " << d["name"].get<std::string>() << ": "
         << d["source"].get<std::string>();
      if (d["source"] == "lengths_file")
        os << " " << d["path"].get<std::string>() << " ("
           << d["sequences"].get<int64_t>() << " sequences, longest "
           << d["max_length"].get<int64_t>() << " tokens)";
      if (d["clamp"].get<int64_t>() > 0)
        os << ", clamp " << d["clamp"].get<int64_t>() << " ("
           << d["overlong"].get<std::string>() << ")";
      os << ", padding " << d["padding"].get<int64_t>() << "; batch "
         << job["batch"].get<int64_t>() << " sequences x "
         << job["steps"].get<int64_t>() << " step(s)\n";
    } else {
      const json &w = job["workload"];
      os << "  workload " << w["name"].get<std::string>() << ": "
         << w["source"].get<std::string>() << ", " << w["tasks"].get<int64_t>()
         << " tasks, concurrency " << w["concurrency"].get<int64_t>() << "\n";
    }
    os << "  fabric   " << f["name"].get<std::string>() << ": "
       << f["chips"].get<int64_t>() << " x " << f["chip"].get<std::string>()
       << " (" << f["nodes"].get<int64_t>() << " nodes x "
       << f["chips_per_node"].get<int64_t>() << "), "
       << formatDecimal(f["chip_memory_bytes"].get<double>(), "B") << " and "
       << formatDecimal(f["chip_bf16_flops"].get<double>(), "FLOP/s")
       << " bf16 per chip, topology "
       << f["topology"]["kind"].get<std::string>() << " at "
       << formatDecimal(
              f["topology"]["link_bandwidth_bytes_per_s"].get<double>(), "B/s")
       << " per link\n";
    if (job.contains("plan"))
      printPrediction(job, os, options.explore);
    else if (job.contains("jct"))
      printServePrediction(job, os);
    else if (job.contains("not_planned"))
      os << "  plan     not planned: " << job["not_planned"].get<std::string>()
         << "\n";
    else if (job.contains("error"))
      os << "  error    " << job["error"].get<std::string>() << "\n";
  }
  for (const json &f : root["fabrics"])
    printFabricAnalysis(f, os);
}
