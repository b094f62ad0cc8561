//===- PlxAttrs.cpp - Attributes of the plx dialect -----------------------===//
//
// Attribute verifiers. Shape rules come from passes/Cost so that the
// frontend and the dialect agree on them.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plx/IR/PlxDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace plexus::plx;

#include "dialects/Plx/IR/PlxOpsEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Plx/IR/PlxOpsAttrs.cpp.inc"

void PlxDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Plx/IR/PlxOpsAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TransformerAttr
//===----------------------------------------------------------------------===//

static plexus::cost::DType toCostDType(DType dtype) {
  switch (dtype) {
  case DType::bf16:
    return plexus::cost::DType::BF16;
  case DType::fp16:
    return plexus::cost::DType::FP16;
  case DType::fp8:
    return plexus::cost::DType::FP8;
  case DType::fp32:
    return plexus::cost::DType::FP32;
  }
  return plexus::cost::DType::BF16;
}

static plexus::cost::TransformerShape
makeShape(int64_t layers, int64_t hidden, int64_t heads, int64_t kvHeads,
          int64_t headDim, int64_t ffn, int64_t vocab, MlpKind mlp, bool tied,
          int64_t experts, int64_t topK, int64_t shared, int64_t moeFfn,
          int64_t denseLayers, int64_t mtpLayers, DType dtype) {
  plexus::cost::TransformerShape s;
  s.layers = layers;
  s.hidden = hidden;
  s.heads = heads;
  s.kvHeads = kvHeads;
  s.headDim = headDim;
  s.ffn = ffn;
  s.vocab = vocab;
  s.mlp = mlp == MlpKind::gelu ? plexus::cost::MlpKind::GeLU
                               : plexus::cost::MlpKind::SwiGLU;
  s.tiedEmbeddings = tied;
  s.experts = experts;
  s.topK = topK;
  s.sharedExperts = shared;
  s.moeFfn = moeFfn;
  s.denseLayers = denseLayers;
  s.mtpLayers = mtpLayers;
  s.dtype = toCostDType(dtype);
  return s;
}

plexus::cost::TransformerShape TransformerAttr::toShape() const {
  return makeShape(getLayers(), getHidden(), getHeads(), getKvHeads(),
                   getHeadDim(), getFfn(), getVocab(), getMlp(),
                   getTiedEmbeddings(), getExperts(), getTopK(),
                   getSharedExperts(), getMoeFfn(), getDenseLayers(),
                   getMtpLayers(), getDtype());
}

LogicalResult
TransformerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t layers, int64_t hidden, int64_t heads,
                        int64_t kvHeads, int64_t headDim, int64_t ffn,
                        int64_t vocab, MlpKind mlp, bool tied, int64_t experts,
                        int64_t topK, int64_t shared, int64_t moeFfn,
                        int64_t denseLayers, int64_t mtpLayers, DType dtype) {
  auto shape =
      makeShape(layers, hidden, heads, kvHeads, headDim, ffn, vocab, mlp, tied,
                experts, topK, shared, moeFfn, denseLayers, mtpLayers, dtype);
  auto problems = plexus::cost::checkTransformerShape(shape);
  if (problems.empty())
    return success();
  return emitError() << problems.front().message;
}

//===----------------------------------------------------------------------===//
// Length distributions
//===----------------------------------------------------------------------===//

LogicalResult
LognormalAttr::verify(function_ref<InFlightDiagnostic()> emitError, Real mu,
                      Real sigma) {
  if (!std::isfinite(mu.value) || !std::isfinite(sigma.value))
    return emitError() << "lognormal mu and sigma must be finite";
  if (sigma <= 0)
    return emitError() << "lognormal sigma must be positive, got "
                       << sigma.value;
  if (mu > 25)
    return emitError() << "lognormal mu = " << mu.value
                       << " gives a median above 7e10 tokens";
  return success();
}

LogicalResult ServeStrategyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t pp, int64_t ep,
    bool dpAttention, int64_t mtpDrafts, int64_t waveInterval,
    Real memoryUtilization, bool chooseAttention, bool kvAwareRouting) {
  if (chooseAttention && dpAttention)
    return emitError() << "choose_attention leaves the attention layout to "
                          "the planner; dp_attention must then be false";
  if (kvAwareRouting && !dpAttention && !chooseAttention)
    return emitError() << "kv_aware_routing places turns on DP-attention "
                          "ranks; it needs dp_attention or choose_attention";
  return success();
}

LogicalResult
HistogramAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> bounds, ArrayRef<Real> weights) {
  if (bounds.empty())
    return emitError() << "histogram needs at least one bin";
  if (bounds.size() != weights.size())
    return emitError() << "histogram has " << bounds.size() << " bounds but "
                       << weights.size() << " weights";
  int64_t previous = 0;
  double total = 0;
  for (auto [i, bound] : llvm::enumerate(bounds)) {
    if (bound <= previous)
      return emitError() << "histogram bounds must increase from 1: bound #"
                         << i << " is " << bound << " after " << previous;
    previous = bound;
    if (!(weights[i].value >= 0) || !std::isfinite(weights[i].value))
      return emitError() << "histogram weight #" << i
                         << " must be a finite non-negative number";
    total += weights[i];
  }
  if (total <= 0)
    return emitError() << "histogram weights sum to zero";
  return success();
}

LogicalResult
LengthsFileAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        StringRef path, int64_t count, int64_t max) {
  if (path.empty())
    return emitError() << "lengths file path is empty";
  if (count <= 0)
    return emitError() << "lengths file holds no lengths";
  if (max <= 0)
    return emitError() << "lengths file maximum must be positive";
  return success();
}

//===----------------------------------------------------------------------===//
// Workloads
//===----------------------------------------------------------------------===//

LogicalResult
TrajectoriesAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         StringRef path, int64_t tasks, int64_t concurrency) {
  if (path.empty())
    return emitError() << "trajectories path is empty";
  if (tasks <= 0)
    return emitError() << "trajectories file holds no tasks";
  if (concurrency <= 0)
    return emitError() << "concurrency must be positive, got " << concurrency;
  return success();
}

LogicalResult SyntheticAgentAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, AgentPreset preset,
    int64_t tasks, int64_t concurrency, int64_t turns, int64_t prompt,
    int64_t newTokens, int64_t outputTokens, Real toolLatency, int64_t maxLen) {
  if (tasks <= 0 || concurrency <= 0 || turns <= 0)
    return emitError() << "tasks, concurrency and turns must be positive";
  if (prompt <= 0 || newTokens <= 0 || outputTokens <= 0)
    return emitError() << "prompt, new_tokens and output_tokens must be "
                          "positive";
  if (!(toolLatency.value >= 0) || !std::isfinite(toolLatency.value))
    return emitError() << "tool_latency must be a finite non-negative time";
  if (maxLen < prompt + outputTokens)
    return emitError() << "max_len (" << maxLen
                       << ") cannot hold the first turn (" << prompt
                       << " prompt + " << outputTokens << " output tokens)";
  return success();
}

//===----------------------------------------------------------------------===//
// ChipAttr
//===----------------------------------------------------------------------===//

LogicalResult ChipAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringRef name, Real bf16, Real fp8, int64_t hbm,
                               Real hbmBw, Real nvlink, Real overlapSlowdown,
                               Real overlapCommEfficiency, Real gemmEfficiency,
                               Real attentionEfficiency, Real memoryEfficiency,
                               int64_t smCount) {
  if (name.empty())
    return emitError() << "chip needs a name";
  if (!(bf16 > 0))
    return emitError() << "chip bf16_flops must be positive";
  if (!(fp8 >= 0))
    return emitError() << "chip fp8_flops must be non-negative";
  if (hbm <= 0)
    return emitError() << "chip hbm_bytes must be positive";
  if (!(hbmBw > 0))
    return emitError() << "chip hbm_bandwidth must be positive";
  if (!(nvlink >= 0))
    return emitError() << "chip nvlink_bandwidth must be non-negative";
  if (!(overlapSlowdown >= 0 && overlapSlowdown <= 4))
    return emitError() << "chip overlap_slowdown must be in [0, 4], got "
                       << overlapSlowdown.value;
  if (!(overlapCommEfficiency > 0 && overlapCommEfficiency <= 1))
    return emitError() << "chip overlap_comm_efficiency must be in (0, 1], got "
                       << overlapCommEfficiency.value;
  for (auto [field, v] :
       {std::pair<const char *, double>{"gemm_efficiency", gemmEfficiency},
        {"attention_efficiency", attentionEfficiency},
        {"memory_efficiency", memoryEfficiency}})
    if (!(v > 0 && v <= 1))
      return emitError() << "chip " << field << " must be in (0, 1], got " << v;
  if (smCount < 0 || smCount > 1024)
    return emitError() << "chip sm_count must be in [0, 1024], got " << smCount;
  return success();
}

plexus::cost::ChipSpec ChipAttr::toChipSpec() const {
  plexus::cost::ChipSpec chip;
  chip.name = getName().str();
  chip.displayName = chip.name;
  chip.bf16Flops = getBf16Flops();
  chip.fp8Flops = getFp8Flops();
  chip.hbmBytes = getHbmBytes();
  chip.hbmBandwidth = getHbmBandwidth();
  chip.nvlinkBandwidth = getNvlinkBandwidth();
  chip.overlapComputeSlowdown = getOverlapSlowdown();
  chip.overlapCommEfficiency = getOverlapCommEfficiency();
  chip.gemmEfficiency = getGemmEfficiency();
  chip.attentionEfficiency = getAttentionEfficiency();
  chip.memoryEfficiency = getMemoryEfficiency();
  chip.smCount = getSmCount();
  return chip;
}

//===----------------------------------------------------------------------===//
// FaultsAttr
//===----------------------------------------------------------------------===//

LogicalResult FaultsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> chips,
                                 ArrayRef<int64_t> links,
                                 ArrayRef<int64_t> ports) {
  if (chips.size() % 2 || links.size() % 2 || ports.size() % 4)
    return emitError() << "faults hold (node, index) chips, node-pair links "
                          "and 4-field ports";
  for (ArrayRef<int64_t> list : {chips, links, ports})
    for (int64_t v : list)
      if (v < 0)
        return emitError() << "fault fields must be non-negative, got " << v;
  for (size_t i = 0; i < ports.size(); i += 4)
    if (ports[i] > 1)
      return emitError() << "port axis must be 0 (row) or 1 (col), got "
                         << ports[i];
  return success();
}

plexus::fabric::FabricFaults FaultsAttr::toFaults() const {
  plexus::fabric::FabricFaults faults;
  ArrayRef<int64_t> chips = getChips(), links = getLinks(), ports = getPorts();
  for (size_t i = 0; i + 1 < chips.size(); i += 2)
    faults.chips.push_back({chips[i], chips[i + 1]});
  for (size_t i = 0; i + 1 < links.size(); i += 2)
    faults.links.push_back({links[i], links[i + 1]});
  for (size_t i = 0; i + 3 < ports.size(); i += 4)
    faults.ports.push_back({ports[i] == 0 ? plexus::fabric::RailAxis::Row
                                          : plexus::fabric::RailAxis::Col,
                            ports[i + 1], ports[i + 2], ports[i + 3]});
  return faults;
}

void FaultsAttr::print(AsmPrinter &printer) const {
  printer << "<";
  bool first = true;
  auto separator = [&] {
    if (!first)
      printer << ", ";
    first = false;
  };
  ArrayRef<int64_t> chips = getChips(), links = getLinks(), ports = getPorts();
  for (size_t i = 0; i + 1 < chips.size(); i += 2) {
    separator();
    printer << "chip(" << chips[i] << ", " << chips[i + 1] << ")";
  }
  for (size_t i = 0; i + 1 < links.size(); i += 2) {
    separator();
    printer << "link(" << links[i] << ", " << links[i + 1] << ")";
  }
  for (size_t i = 0; i + 3 < ports.size(); i += 4) {
    separator();
    printer << "port(" << (ports[i] == 0 ? "row" : "col") << ", "
            << ports[i + 1] << ", " << ports[i + 2] << ", " << ports[i + 3]
            << ")";
  }
  printer << ">";
}

Attribute FaultsAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> chips, links, ports;
  auto parseEntry = [&]() -> ParseResult {
    StringRef kind;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&kind) || parser.parseLParen())
      return failure();
    SmallVector<int64_t> *list = kind == "chip"   ? &chips
                                 : kind == "link" ? &links
                                 : kind == "port" ? &ports
                                                  : nullptr;
    if (!list)
      return parser.emitError(loc, "expected chip, link or port, got '")
             << kind << "'";
    unsigned count = kind == "port" ? 4 : 2;
    for (unsigned k = 0; k < count; ++k) {
      if (k && parser.parseComma())
        return failure();
      if (kind == "port" && k == 0) {
        StringRef axis;
        SMLoc axisLoc = parser.getCurrentLocation();
        if (parser.parseKeyword(&axis))
          return failure();
        if (axis != "row" && axis != "col")
          return parser.emitError(axisLoc, "expected 'row' or 'col'");
        list->push_back(axis == "row" ? 0 : 1);
        continue;
      }
      int64_t value = 0;
      if (parser.parseInteger(value))
        return failure();
      list->push_back(value);
    }
    return parser.parseRParen();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseEntry))
    return {};
  return FaultsAttr::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); },
      parser.getContext(), chips, links, ports);
}

//===----------------------------------------------------------------------===//
// PricesAttr
//===----------------------------------------------------------------------===//

namespace {
plexus::fabric::PriceTable priceTableOf(double ocsPort, int64_t ocsRadix,
                                        double fibre, ArrayRef<Real> speeds) {
  plexus::fabric::PriceTable table;
  table.ocsPortUsd = ocsPort;
  table.ocsRadix = ocsRadix;
  table.fibreUsd = fibre;
  table.speeds.clear();
  for (size_t i = 0; i + 4 < speeds.size(); i += 5)
    table.speeds.push_back({speeds[i], speeds[i + 1], speeds[i + 2],
                            static_cast<int64_t>(speeds[i + 3]),
                            speeds[i + 4]});
  return table;
}
} // namespace

LogicalResult PricesAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 Real ocsPort, int64_t ocsRadix, Real fibre,
                                 ArrayRef<Real> speeds) {
  if (speeds.size() % 5)
    return emitError() << "prices hold five numbers per speed class, got "
                       << speeds.size();
  for (size_t i = 3; i < speeds.size(); i += 5)
    if (speeds[i] != std::floor(double(speeds[i])))
      return emitError() << "a switch radix is a whole number, got "
                         << speeds[i];
  auto problems = plexus::fabric::checkPrices(
      priceTableOf(ocsPort, ocsRadix, fibre, speeds));
  if (!problems.empty())
    return emitError() << problems.front().message;
  return success();
}

plexus::fabric::PriceTable PricesAttr::toPriceTable() const {
  return priceTableOf(getOcsPort(), getOcsRadix(), getFibre(), getSpeeds());
}

PricesAttr PricesAttr::get(MLIRContext *context,
                           const plexus::fabric::PriceTable &table) {
  SmallVector<Real> speeds;
  for (const plexus::fabric::SpeedClassPrice &c : table.speeds)
    speeds.append({Real(c.gbps), Real(c.transceiverUsd), Real(c.switchPortUsd),
                   Real(static_cast<double>(c.switchRadix)),
                   Real(c.nicPortUsd)});
  return get(context, table.ocsPortUsd, table.ocsRadix, table.fibreUsd, speeds);
}

void PricesAttr::print(AsmPrinter &printer) const {
  printer << "<ocs_port = " << getOcsPort() << ", ocs_radix = " << getOcsRadix()
          << ", fibre = " << getFibre() << ", speeds = [";
  ArrayRef<Real> speeds = getSpeeds();
  for (size_t i = 0; i + 4 < speeds.size(); i += 5) {
    printer << (i ? ", (" : "(");
    for (size_t k = 0; k < 5; ++k)
      printer << (k ? ", " : "") << speeds[i + k];
    printer << ")";
  }
  printer << "]>";
}

Attribute PricesAttr::parse(AsmParser &parser, Type) {
  FailureOr<Real> ocsPort, fibre;
  int64_t ocsRadix = 0;
  SmallVector<Real> speeds;
  auto parseClass = [&]() -> ParseResult {
    if (parser.parseLParen())
      return failure();
    for (unsigned k = 0; k < 5; ++k) {
      if (k && parser.parseComma())
        return failure();
      FailureOr<Real> value = parseF64Param(parser);
      if (failed(value))
        return failure();
      speeds.push_back(*value);
    }
    return parser.parseRParen();
  };
  if (parser.parseLess() || parser.parseKeyword("ocs_port") ||
      parser.parseEqual() || failed(ocsPort = parseF64Param(parser)) ||
      parser.parseComma() || parser.parseKeyword("ocs_radix") ||
      parser.parseEqual() || parser.parseInteger(ocsRadix) ||
      parser.parseComma() || parser.parseKeyword("fibre") ||
      parser.parseEqual() || failed(fibre = parseF64Param(parser)) ||
      parser.parseComma() || parser.parseKeyword("speeds") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     parseClass) ||
      parser.parseGreater())
    return {};
  return PricesAttr::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); },
      parser.getContext(), *ocsPort, ocsRadix, *fibre, speeds);
}
