//===- PlanPlacementOps.cpp - Jobs, communicators, placement --------------===//
//
// Verifiers of plan.job, plan.comm_group and plan.circuit. The job checks
// that every communicator stays within its ranks and, once placed, that
// every rank has its own chip; the fabric's size is checked by plx-place,
// which builds the fabric.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plan/IR/PlanDialect.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"

#include <set>

using namespace mlir;
using namespace plexus::plan;

#include "dialects/Plan/IR/PlanOpsEnums.cpp.inc"

/// Reports the first repeated value of `values`, if any.
static LogicalResult checkUnique(Operation *op, ArrayRef<int64_t> values,
                                 StringRef what) {
  llvm::DenseSet<int64_t> seen;
  for (int64_t v : values)
    if (!seen.insert(v).second)
      return op->emitOpError() << what << " lists " << v << " twice";
  return success();
}

//===----------------------------------------------------------------------===//
// plan.job
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t> JobOp::chipOf(int64_t rank) {
  ArrayRef<int64_t> chips = *getChips();
  return {chips[2 * rank], chips[2 * rank + 1]};
}

LogicalResult JobOp::verify() {
  if (getRanks() < 1)
    return emitOpError("needs at least one rank, got ") << getRanks();
  if (auto chips = getChips()) {
    if (static_cast<int64_t>(chips->size()) != 2 * getRanks())
      return emitOpError("places ")
             << chips->size() / 2 << " ranks, but the job has " << getRanks();
    std::set<std::pair<int64_t, int64_t>> used;
    for (int64_t r = 0; r < getRanks(); ++r) {
      auto chip = chipOf(r);
      if (chip.first < 0 || chip.second < 0)
        return emitOpError("rank ") << r << " has a negative chip coordinate";
      if (!used.insert(chip).second)
        return emitOpError("ranks share chip (")
               << chip.first << ", " << chip.second << "): rank " << r;
    }
  }
  return success();
}

LogicalResult JobOp::verifyRegions() {
  std::set<std::string> names;
  for (Operation &op : getBodyRegion().front()) {
    auto group = dyn_cast<CommGroupOp>(op);
    if (!group)
      return op.emitOpError("is not a communicator; a plan.job holds only "
                            "plan.comm_group ops");
    for (int64_t r : group.getRanks())
      if (r >= getRanks())
        return group.emitOpError("rank ")
               << r << " is outside the job's " << getRanks() << " ranks";
  }
  return success();
}

LogicalResult JobOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  // The job is a symbol table of its own (its communicators): look the
  // fabric up from the enclosing one.
  Operation *parent = (*this)->getParentOp();
  Operation *fabric =
      parent ? symbolTable.lookupNearestSymbolFrom(parent, getFabricAttr())
             : nullptr;
  if (!fabric)
    return emitOpError("fabric '")
           << getFabric() << "' does not name a declaration";
  if (fabric->getName().getStringRef() != "plx.fabric")
    return emitOpError("fabric '")
           << getFabric() << "' names a '" << fabric->getName()
           << "', expected a 'plx.fabric'";
  return success();
}

//===----------------------------------------------------------------------===//
// plan.comm_group
//===----------------------------------------------------------------------===//

LogicalResult CommGroupOp::verify() {
  ArrayRef<int64_t> ranks = getRanks();
  if (ranks.empty())
    return emitOpError("needs at least one rank");
  for (int64_t r : ranks)
    if (r < 0)
      return emitOpError("rank ") << r << " is negative";
  if (failed(checkUnique(*this, ranks, "ranks")))
    return failure();
  if (getKind() == CommKind::pipeline && ranks.size() < 2)
    return emitOpError("a pipeline needs at least two stages");
  if (auto order = getOrder()) {
    std::multiset<int64_t> a(ranks.begin(), ranks.end()),
        b(order->begin(), order->end());
    if (a != b)
      return emitOpError("order must be a permutation of ranks");
  }
  if (auto hops = getHops(); hops && *hops < 0)
    return emitOpError("hops must be non-negative, got ") << *hops;
  return success();
}

//===----------------------------------------------------------------------===//
// plan.circuit
//===----------------------------------------------------------------------===//

LogicalResult CircuitOp::verify() {
  if (getIndex() < 0 || getRail() < 0)
    return emitOpError("index and rail must be non-negative");
  ArrayRef<int64_t> cycle = getCycle();
  for (int64_t n : cycle)
    if (n < 0)
      return emitOpError("node ") << n << " is negative";
  if (failed(checkUnique(*this, cycle, "cycle")))
    return failure();
  if (auto ports = getPorts()) {
    // A switch configuration connects each port to exactly one port.
    for (int64_t p : *ports)
      if (p < 0 || p >= static_cast<int64_t>(ports->size()))
        return emitOpError("port ")
               << p << " is outside the switch's " << ports->size() << " ports";
    if (failed(checkUnique(*this, *ports, "ports")))
      return emitOpError("ports must be a permutation");
  }
  return success();
}
