//===- PlxOps.cpp - Ops of the plx (spec) dialect -------------------------===//
//
// Op verifiers: local rules in verify(), cross-declaration rules (the job
// rules of dialects/Common/JobRules.h) in verifySymbolUses().
//
//===----------------------------------------------------------------------===//
#include "dialects/Plx/IR/PlxDialect.h"

#include "dialects/Common/JobRules.h"
#include "dialects/Common/TopologyShape.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace plexus::plx;

// Enum keywords printed bare inside op formats (`overlong drop`).
template <typename AttrT, typename SymbolizeFn>
static ParseResult parseEnumKeyword(OpAsmParser &parser, AttrT &attr,
                                    SymbolizeFn symbolize, StringRef what) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  auto value = symbolize(keyword);
  if (!value)
    return parser.emitError(loc)
           << "unknown " << what << " '" << keyword << "'";
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}

static ParseResult parseOverlong(OpAsmParser &parser, OverlongAttr &attr) {
  return parseEnumKeyword(
      parser, attr, [](StringRef k) { return symbolizeOverlong(k); },
      "overlong policy");
}
static void printOverlong(OpAsmPrinter &printer, Operation *,
                          OverlongAttr attr) {
  printer << stringifyOverlong(attr.getValue());
}
static ParseResult parseIntraNode(OpAsmParser &parser, IntraNodeAttr &attr) {
  return parseEnumKeyword(
      parser, attr, [](StringRef k) { return symbolizeIntraNode(k); },
      "intra-node interconnect");
}
static void printIntraNode(OpAsmPrinter &printer, Operation *,
                           IntraNodeAttr attr) {
  printer << stringifyIntraNode(attr.getValue());
}

#define GET_OP_CLASSES
#include "dialects/Plx/IR/PlxOps.cpp.inc"

//===----------------------------------------------------------------------===//
// DatasetOp
//===----------------------------------------------------------------------===//

LogicalResult DatasetOp::verify() {
  if (getClamp() < 0)
    return emitOpError("clamp must be non-negative (0: no limit), got ")
           << getClamp();
  if (getPadding() < 1)
    return emitOpError("padding must be at least 1, got ") << getPadding();
  if (getClamp() > 0 && getPadding() > getClamp())
    return emitOpError("padding (")
           << getPadding() << ") exceeds the clamp (" << getClamp() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// FabricOp
//===----------------------------------------------------------------------===//

static plexus::fabric::TopologyShape topologyShapeOf(Attribute topology) {
  plexus::fabric::TopologyShape t;
  llvm::TypeSwitch<Attribute>(topology)
      .Case([&](RailXAttr a) {
        t.kind = plexus::fabric::TopologyKind::RailX;
        t.rows = a.getRows();
        t.cols = a.getCols();
        t.rails = a.getRails();
        t.directed = a.getDirected();
        t.linkBandwidth = a.getLinkBandwidth();
      })
      .Case([&](FatTreeAttr a) {
        t.kind = plexus::fabric::TopologyKind::FatTree;
        t.radix = a.getRadix();
        t.tiers = a.getTiers();
        t.oversubscription = a.getOversubscription();
        t.linkBandwidth = a.getLinkBandwidth();
      })
      .Case([&](RailOptimizedAttr a) {
        t.kind = plexus::fabric::TopologyKind::RailOptimized;
        t.rails = a.getRails();
        t.radix = a.getRadix();
        t.oversubscription = a.getOversubscription();
        t.linkBandwidth = a.getLinkBandwidth();
      })
      .Case([&](TorusAttr a) {
        t.kind = plexus::fabric::TopologyKind::Torus;
        t.dims.assign(a.getDims().begin(), a.getDims().end());
        t.linkBandwidth = a.getLinkBandwidth();
      });
  return t;
}

plexus::fabric::TopologyShape FabricOp::getTopologyShape() {
  return topologyShapeOf(getTopology());
}

plexus::fabric::PriceTable FabricOp::getPriceTable() {
  if (PricesAttr prices = getPricesAttr())
    return prices.toPriceTable();
  return {};
}

plexus::fabric::FabricFaults FabricOp::getFaults() {
  if (auto failed = getFailedAttr())
    return failed.toFaults();
  return {};
}

LogicalResult FabricOp::verify() {
  if (getNodes() < 1)
    return emitOpError("needs at least one node, got ") << getNodes();
  if (getChipsPerNode() < 1)
    return emitOpError("needs at least one chip per node, got ")
           << getChipsPerNode();
  if (getIntraNodeBandwidth() < 0 ||
      (getIntraNodeBandwidth() == 0 && getChipsPerNode() > 1))
    return emitOpError("intra-node bandwidth must be positive with ")
           << getChipsPerNode() << " chips per node";
  plexus::fabric::TopologyShape shape = topologyShapeOf(getTopology());
  auto problems =
      plexus::fabric::checkTopologyShape(shape, getNodes(), getChipsPerNode());
  if (!problems.empty())
    return emitOpError() << problems.front().message;
  if (auto failed = getFailedAttr()) {
    auto faultProblems = plexus::fabric::checkFaults(
        shape, getNodes(), getChipsPerNode(), failed.toFaults());
    if (!faultProblems.empty())
      return emitOpError() << faultProblems.front().message;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Jobs
//===----------------------------------------------------------------------===//

template <typename OpT>
static OpT lookupAs(Operation *user, SymbolTableCollection &symbolTable,
                    FlatSymbolRefAttr ref, StringRef field, StringRef expected,
                    bool &failed) {
  Operation *target = symbolTable.lookupNearestSymbolFrom(user, ref);
  if (!target) {
    user->emitOpError() << field << " '" << ref.getValue()
                        << "' does not name a declaration";
    failed = true;
    return {};
  }
  auto op = dyn_cast<OpT>(target);
  if (!op) {
    user->emitOpError() << field << " '" << ref.getValue() << "' names a '"
                        << target->getName() << "', expected " << expected;
    failed = true;
  }
  return op;
}

LogicalResult TrainOp::verify() {
  if (getBatch() < 1)
    return emitOpError("batch must be at least one sequence, got ")
           << getBatch();
  if (getSteps() < 1)
    return emitOpError("steps must be at least 1, got ") << getSteps();
  TrainStrategyAttr s = getStrategy();
  if (s.getSp() == SpMode::static_ && s.getSpDegree() < 1)
    return emitOpError("static sp needs sp_degree >= 1");
  if (s.getPp() == PpMode::static_ && s.getPpDegree() < 1)
    return emitOpError("static pp needs pp_degree >= 1");
  if (s.getVirtualStages() < 1)
    return emitOpError("virtual_stages must be at least 1, got ")
           << s.getVirtualStages();
  if (s.getVirtualStages() > 1 &&
      (s.getPp() != PpMode::static_ || s.getPpDegree() < 2))
    return emitOpError("virtual_stages ")
           << s.getVirtualStages()
           << " interleaves model chunks and needs a static pp_degree >= 2";
  if (s.getZero() < 0 || s.getZero() > 3)
    return emitOpError("zero stage must be 0..3, got ") << s.getZero();
  if (s.getZeroPrefetch() < 0 || s.getZeroPrefetch() > 1)
    return emitOpError("zero_prefetch must be 0 or 1, got ")
           << s.getZeroPrefetch();
  if (s.getCheckpointLayers() < 0)
    return emitOpError("checkpoint_layers must be non-negative, got ")
           << s.getCheckpointLayers();
  if (s.getCheckpointLayers() > 0 &&
      (s.getCheckpoint() == Checkpoint::none ||
       s.getCheckpoint() == Checkpoint::adaptive ||
       s.getPp() != PpMode::static_ || s.getPpDegree() != 1))
    return emitOpError("checkpoint_layers needs an unpipelined job (static "
                       "pp_degree 1) with checkpoint selective, "
                       "attention_mlp or full");
  if (s.getZeroPrefetch() != 1 && s.getZero() != 3)
    return emitOpError("zero_prefetch applies to ZeRO-3's gathers, but the "
                       "zero stage is ")
           << s.getZero();
  if (s.getMemoryLimit() < 0)
    return emitOpError("memory_limit must be non-negative");
  if (s.getMicroBatch() < 0)
    return emitOpError("micro_batch must be non-negative, got ")
           << s.getMicroBatch();
  return success();
}

LogicalResult TrainOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  bool failed = false;
  auto model = lookupAs<ModelOp>(*this, symbolTable, getModelAttr(), "model",
                                 "a 'plx.model'", failed);
  lookupAs<DatasetOp>(*this, symbolTable, getDataAttr(), "data",
                      "a 'plx.dataset'", failed);
  auto fabric = lookupAs<FabricOp>(*this, symbolTable, getFabricAttr(),
                                   "fabric", "a 'plx.fabric'", failed);
  if (failed)
    return failure();
  TrainStrategyAttr s = getStrategy();
  plexus::cost::TrainDegrees degrees;
  degrees.sp = s.getSp() == SpMode::static_ ? s.getSpDegree() : 0;
  degrees.pp = s.getPp() == PpMode::static_ ? s.getPpDegree() : 0;
  degrees.tp = s.getTp();
  degrees.cp = s.getCp();
  degrees.zero = s.getZero();
  degrees.memoryLimitBytes = s.getMemoryLimit();
  degrees.memoryReserveBytes = s.getMemoryReserve();
  auto problems = plexus::cost::checkTrainJob(model.getShape().toShape(),
                                              fabric.getChip().toChipSpec(),
                                              getJobChips(fabric), degrees);
  if (!problems.empty())
    return emitOpError() << problems.front().message;
  return success();
}

LogicalResult ServeOp::verify() {
  ServeStrategyAttr s = getStrategy();
  if (s.getPp() < 0 || s.getEp() < 0)
    return emitOpError("pp and ep must be at least 1 (0: the planner "
                       "chooses)");
  if (s.getMtpDrafts() < 0 || s.getWaveInterval() < 0)
    return emitOpError("mtp_drafts and wave_interval must be non-negative");
  return success();
}

LogicalResult ServeOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  bool failed = false;
  auto model = lookupAs<ModelOp>(*this, symbolTable, getModelAttr(), "model",
                                 "a 'plx.model'", failed);
  lookupAs<WorkloadOp>(*this, symbolTable, getWorkloadAttr(), "workload",
                       "a 'plx.workload'", failed);
  auto fabric = lookupAs<FabricOp>(*this, symbolTable, getFabricAttr(),
                                   "fabric", "a 'plx.fabric'", failed);
  if (failed)
    return failure();
  ServeStrategyAttr s = getStrategy();
  plexus::cost::ServeDegrees degrees;
  degrees.pp = s.getPp();
  degrees.ep = s.getEp();
  degrees.memoryUtilization = s.getMemoryUtilization();
  auto problems = plexus::cost::checkServeJob(model.getShape().toShape(),
                                              fabric.getChip().toChipSpec(),
                                              getJobChips(fabric), degrees);
  if (!problems.empty())
    return emitOpError() << problems.front().message;
  return success();
}
