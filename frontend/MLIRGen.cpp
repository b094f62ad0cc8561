//===- MLIRGen.cpp - Checked spec to plx IR -------------------------------===//
#include "frontend/MLIRGen.h"

#include "dialects/Plx/IR/PlxDialect.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <ostream>

using namespace mlir;
using namespace plexus;
using namespace plexus::frontend;

namespace {

class SpecModuleBuilder {
public:
  SpecModuleBuilder(MLIRContext &context, const SourceManager &sources)
      : context_(context), sources_(sources), builder_(&context) {}

  OwningOpRef<ModuleOp> build(const Spec &spec) {
    OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context_));
    builder_.setInsertionPointToEnd(module->getBody());
    for (auto [kind, index] : spec.order) {
      switch (kind) {
      case Spec::Kind::Model:
        emit(spec.models[index]);
        break;
      case Spec::Kind::Dataset:
        emit(spec.datasets[index]);
        break;
      case Spec::Kind::Workload:
        emit(spec.workloads[index]);
        break;
      case Spec::Kind::Fabric:
        emit(spec.fabrics[index]);
        break;
      case Spec::Kind::Train:
        emit(spec.trains[index]);
        break;
      case Spec::Kind::Serve:
        emit(spec.serves[index]);
        break;
      }
    }
    return module;
  }

private:
  Location loc(SourceLocation l) {
    return FileLineColLoc::get(&context_, sources_.name(l.fileId), l.line,
                               l.col);
  }

  IntegerAttr i64(int64_t v) { return builder_.getI64IntegerAttr(v); }

  void emit(const ModelSpec &m) {
    const cost::TransformerShape &s = m.shape;
    auto dtype = s.dtype == cost::DType::FP16   ? plx::DType::fp16
                 : s.dtype == cost::DType::FP8  ? plx::DType::fp8
                 : s.dtype == cost::DType::FP32 ? plx::DType::fp32
                                                : plx::DType::bf16;
    auto shape = plx::TransformerAttr::get(
        &context_, s.layers, s.hidden, s.heads, s.kvHeads, s.headDim, s.ffn,
        s.vocab,
        s.mlp == cost::MlpKind::GeLU ? plx::MlpKind::gelu
                                     : plx::MlpKind::swiglu,
        s.tiedEmbeddings, s.experts, s.topK, s.sharedExperts, s.moeFfn,
        s.denseLayers, s.mtpLayers, dtype);
    builder_.create<plx::ModelOp>(loc(m.loc), builder_.getStringAttr(m.name),
                                  shape);
  }

  void emit(const DatasetSpec &d) {
    Attribute source;
    switch (d.source) {
    case DatasetSpec::Source::Lognormal:
      source = plx::LognormalAttr::get(&context_, d.mu, d.sigma);
      break;
    case DatasetSpec::Source::Histogram:
      source = plx::HistogramAttr::get(
          &context_, d.bounds,
          std::vector<plx::Real>(d.weights.begin(), d.weights.end()));
      break;
    case DatasetSpec::Source::LengthsFile:
      source = plx::LengthsFileAttr::get(&context_, d.path, d.count, d.max);
      break;
    }
    builder_.create<plx::DatasetOp>(
        loc(d.loc), builder_.getStringAttr(d.name), source, i64(d.clamp),
        i64(d.padding),
        plx::OverlongAttr::get(&context_, d.truncate ? plx::Overlong::truncate
                                                     : plx::Overlong::drop));
  }

  void emit(const WorkloadSpec &w) {
    Attribute source;
    if (w.source == WorkloadSpec::Source::Trajectories) {
      source =
          plx::TrajectoriesAttr::get(&context_, w.path, w.tasks, w.concurrency);
    } else {
      auto preset = w.preset == WorkloadSpec::Preset::SweBench
                        ? plx::AgentPreset::swe_bench
                    : w.preset == WorkloadSpec::Preset::BrowseComp
                        ? plx::AgentPreset::browsecomp
                        : plx::AgentPreset::custom;
      source = plx::SyntheticAgentAttr::get(
          &context_, preset, w.tasks, w.concurrency, w.turns, w.prompt,
          w.newTokens, w.outputTokens, w.toolLatency, w.maxLen);
    }
    builder_.create<plx::WorkloadOp>(loc(w.loc), builder_.getStringAttr(w.name),
                                     source);
  }

  plx::FaultsAttr faultsAttr(const fabric::FabricFaults &faults) {
    if (faults.empty())
      return {};
    SmallVector<int64_t> chips, links, ports;
    for (const fabric::FailedChip &c : faults.chips)
      chips.append({c.node, c.local});
    for (const fabric::FailedLink &l : faults.links)
      links.append({l.a, l.b});
    for (const fabric::FailedPort &p : faults.ports)
      ports.append({p.axis == fabric::RailAxis::Row ? 0 : 1, p.index, p.rail,
                    p.position});
    return plx::FaultsAttr::get(&context_, chips, links, ports);
  }

  void emit(const FabricSpec &f) {
    auto chip = plx::ChipAttr::get(
        &context_, f.chip.name, f.chip.bf16Flops, f.chip.fp8Flops,
        f.chip.hbmBytes, f.chip.hbmBandwidth, f.chip.nvlinkBandwidth,
        f.chip.overlapComputeSlowdown, f.chip.overlapCommEfficiency,
        f.chip.gemmEfficiency, f.chip.attentionEfficiency,
        f.chip.memoryEfficiency, f.chip.smCount);
    const fabric::TopologyShape &t = f.topology;
    Attribute topology;
    switch (t.kind) {
    case fabric::TopologyKind::RailX:
      topology = plx::RailXAttr::get(&context_, t.rows, t.cols, t.rails,
                                     t.linkBandwidth, t.directed);
      break;
    case fabric::TopologyKind::FatTree:
      topology = plx::FatTreeAttr::get(&context_, t.radix, t.tiers,
                                       t.linkBandwidth, t.oversubscription);
      break;
    case fabric::TopologyKind::RailOptimized:
      topology = plx::RailOptimizedAttr::get(
          &context_, t.rails, t.radix, t.linkBandwidth, t.oversubscription);
      break;
    case fabric::TopologyKind::Torus:
      topology = plx::TorusAttr::get(&context_, t.dims, t.linkBandwidth);
      break;
    }
    auto intra =
        f.intraNode == FabricSpec::IntraNode::Mesh   ? plx::IntraNode::mesh
        : f.intraNode == FabricSpec::IntraNode::Ring ? plx::IntraNode::ring
                                                     : plx::IntraNode::nvswitch;
    builder_.create<plx::FabricOp>(
        loc(f.loc), builder_.getStringAttr(f.name), chip, i64(f.nodes),
        i64(f.chipsPerNode), plx::IntraNodeAttr::get(&context_, intra),
        i64(static_cast<int64_t>(std::llround(f.intraNodeBandwidth))), topology,
        faultsAttr(f.faults),
        f.pricesGiven ? plx::PricesAttr::get(&context_, f.prices)
                      : plx::PricesAttr());
  }

  void emit(const TrainSpec &t) {
    auto sp = t.sp == TrainSpec::Sp::Adaptive ? plx::SpMode::adaptive
              : t.sp == TrainSpec::Sp::BestHomogeneous
                  ? plx::SpMode::best_homogeneous
                  : plx::SpMode::static_;
    auto ckpt = t.checkpoint == TrainSpec::Checkpoint::Selective
                    ? plx::Checkpoint::selective
                : t.checkpoint == TrainSpec::Checkpoint::Full
                    ? plx::Checkpoint::full
                : t.checkpoint == TrainSpec::Checkpoint::Adaptive
                    ? plx::Checkpoint::adaptive
                : t.checkpoint == TrainSpec::Checkpoint::AttentionMlp
                    ? plx::Checkpoint::attention_mlp
                    : plx::Checkpoint::none;
    auto strategy = plx::TrainStrategyAttr::get(
        &context_, sp, t.spDegree,
        t.pp == TrainSpec::Pp::Dynamic ? plx::PpMode::dynamic
                                       : plx::PpMode::static_,
        t.ppDegree, t.tp, t.cp, ckpt, t.zero, t.memoryLimit, t.microBatch,
        t.memoryReserve, t.eagerAttention, t.virtualStages, t.zeroPrefetch,
        t.checkpointLayers);
    builder_.create<plx::TrainOp>(loc(t.loc), builder_.getStringAttr(t.name),
                                  FlatSymbolRefAttr::get(&context_, t.model),
                                  FlatSymbolRefAttr::get(&context_, t.data),
                                  FlatSymbolRefAttr::get(&context_, t.fabric),
                                  t.chips ? i64(t.chips) : IntegerAttr(),
                                  i64(t.batch), i64(t.steps), i64(t.seed),
                                  strategy);
  }

  void emit(const ServeSpec &s) {
    auto strategy = plx::ServeStrategyAttr::get(
        &context_, s.pp, s.ep, s.dpAttention, s.mtpDrafts, s.waveInterval,
        s.memoryUtilization, s.chooseAttention, s.kvAwareRouting);
    builder_.create<plx::ServeOp>(loc(s.loc), builder_.getStringAttr(s.name),
                                  FlatSymbolRefAttr::get(&context_, s.model),
                                  FlatSymbolRefAttr::get(&context_, s.workload),
                                  FlatSymbolRefAttr::get(&context_, s.fabric),
                                  s.chips ? i64(s.chips) : IntegerAttr(),
                                  i64(s.seed), strategy);
  }

  MLIRContext &context_;
  const SourceManager &sources_;
  OpBuilder builder_;
};

OwningOpRef<ModuleOp> finish(MLIRContext &context,
                             std::optional<Program> program,
                             SourceManager &sources,
                             frontend::DiagnosticEngine &diags,
                             std::ostream &errs) {
  std::optional<Spec> spec;
  if (program)
    spec = analyzeProgram(*program, sources, diags);
  if (!spec) {
    diags.print(errs);
    return nullptr;
  }
  context.getOrLoadDialect<plx::PlxDialect>();
  OwningOpRef<ModuleOp> module = buildSpecModule(context, *spec, sources);
  // The verifiers re-check what Sema promised; a failure here is our bug.
  std::string messages;
  {
    ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
      llvm::raw_string_ostream os(messages);
      os << diag.getLocation() << ": " << diag << "\n";
      return success();
    });
    if (failed(verify(*module))) {
      errs << "internal error: the checked spec failed verification; please "
              "report this with the input:\n"
           << messages;
      return nullptr;
    }
  }
  diags.print(errs); // warnings, if any
  return module;
}

} // namespace

OwningOpRef<ModuleOp>
plexus::frontend::buildSpecModule(MLIRContext &context, const Spec &spec,
                                  const SourceManager &sources) {
  context.getOrLoadDialect<plx::PlxDialect>();
  return SpecModuleBuilder(context, sources).build(spec);
}

OwningOpRef<ModuleOp>
plexus::frontend::importPlxFile(MLIRContext &context, const std::string &path,
                                std::ostream &errs, unsigned errorLimit,
                                const LoadOptions &options) {
  SourceManager sources;
  frontend::DiagnosticEngine diags(sources);
  diags.setErrorLimit(errorLimit);
  diags.setFormat(options.diagnosticFormat);
  std::optional<Program> program = loadProgram(path, sources, diags, options);
  return finish(context, std::move(program), sources, diags, errs);
}

OwningOpRef<ModuleOp> plexus::frontend::importPlxText(
    MLIRContext &context, const std::string &name, std::string text,
    std::ostream &errs, const LoadOptions &options, unsigned errorLimit) {
  SourceManager sources;
  frontend::DiagnosticEngine diags(sources);
  diags.setErrorLimit(errorLimit);
  diags.setFormat(options.diagnosticFormat);
  std::optional<Program> program =
      loadProgramFromText(name, std::move(text), sources, diags, options);
  return finish(context, std::move(program), sources, diags, errs);
}
