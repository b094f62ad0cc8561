//===- ChunkCheckpointing.cpp - Stage-aware chunk-level checkpointing -----===//
//
// The windows, the baselines and the CBC model of ChunkCheckpointing.h.
//
//===----------------------------------------------------------------------===//
#include "passes/Checkpoint/ChunkCheckpointing.h"
#include "passes/Solver/CbcSupport.h"

#include <coin/Cbc_C_Interface.h>
#include <coin/Clp_C_Interface.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <set>

namespace plexus::ckpt {

namespace {

/// A window fits when its MB exceed the budget by at most this share (of
/// the budget, at least 1 MB): room for rounding in the LP, never more.
constexpr double kRelativeSlack = 1e-9;

std::string formatMB(double mb) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MB", mb);
  return buf;
}

bool fitsBudget(double mb, double budget) {
  return mb <= budget + kRelativeSlack * std::max(1.0, std::fabs(budget));
}

/// One set of chunks a stage holds at once, with its MB without checkpointing.
struct Window {
  int64_t stage = 0;
  std::vector<int64_t> chunks;
  double baseMB = 0;
};

std::vector<Window> allWindows(const CheckpointProblem &p) {
  std::vector<Window> out;
  for (int64_t s = 0; s < p.stages; ++s) {
    const std::vector<int64_t> &order = p.stageOrders[static_cast<size_t>(s)];
    std::vector<std::vector<int64_t>> windows = inFlightWindows(order);
    // The backward that follows each window (inFlightWindows' order):
    // its working memory, one layer's activations of its chunk, comes on
    // top of the window while it runs.
    std::vector<int64_t> next;
    for (size_t i = 0; i < order.size(); ++i)
      if (order[i] >= 0 && (i + 1 == order.size() || order[i + 1] < 0))
        next.push_back(i + 1 < order.size() ? -order[i + 1] - 1 : -1);
    for (size_t i = 0; i < windows.size(); ++i) {
      Window win;
      win.stage = s;
      for (int64_t k : windows[i])
        win.baseMB += p.baseMB[static_cast<size_t>(s)][static_cast<size_t>(k)];
      if (p.backwardWorkingMemory && i < next.size() && next[i] >= 0)
        win.baseMB += p.savedMBPerLayer[static_cast<size_t>(next[i])];
      win.chunks = std::move(windows[i]);
      out.push_back(std::move(win));
    }
  }
  return out;
}

double windowMB(const CheckpointProblem &p, const Window &w,
                const std::vector<std::vector<int64_t>> &layers) {
  double mb = w.baseMB;
  for (int64_t k : w.chunks)
    mb -= p.savedMBPerLayer[static_cast<size_t>(k)] *
          static_cast<double>(
              layers[static_cast<size_t>(w.stage)][static_cast<size_t>(k)]);
  return mb;
}

std::string chunkList(const std::vector<int64_t> &chunks) {
  std::string s = "{";
  for (size_t i = 0; i < chunks.size(); ++i)
    s += (i ? ", " : "") + std::to_string(chunks[i]);
  return s + "}";
}

/// Empty when every window fits; else the first that does not.
std::string firstOverflow(const CheckpointProblem &p,
                          const std::vector<Window> &windows,
                          const std::vector<std::vector<int64_t>> &layers,
                          const std::string &how) {
  for (const Window &w : windows) {
    double mb = windowMB(p, w, layers);
    double budget = p.budgetMB[static_cast<size_t>(w.stage)];
    if (!fitsBudget(mb, budget))
      return "stage " + std::to_string(w.stage) + " holds chunks " +
             chunkList(w.chunks) + " at once: " + formatMB(mb) +
             " of activations " + how + ", but only " + formatMB(budget) +
             " are free beside the model states";
  }
  return "";
}

std::vector<std::vector<int64_t>> uniformLayers(const CheckpointProblem &p,
                                                int64_t l) {
  return std::vector<std::vector<int64_t>>(
      static_cast<size_t>(p.stages),
      std::vector<int64_t>(p.savedMBPerLayer.size(), l));
}

/// Per stage and chunk, what a chunk checkpoints given the slots.
std::vector<std::vector<int64_t>>
layersFromSlots(const CheckpointProblem &p, const std::vector<int64_t> &bpos,
                const std::vector<int64_t> &slots, bool monotone) {
  const size_t n = p.savedMBPerLayer.size();
  std::vector<std::vector<int64_t>> layers(static_cast<size_t>(p.stages),
                                           std::vector<int64_t>(n, 0));
  for (size_t k = 0; k < n; ++k) {
    int64_t cap = std::numeric_limits<int64_t>::max();
    for (int64_t s = 0; s < p.stages; ++s) {
      int64_t slot = slots[static_cast<size_t>(bpos[k] + p.stages - 1 - s)];
      cap = monotone ? std::min(cap, slot) : slot;
      layers[static_cast<size_t>(s)][k] = cap;
    }
  }
  return layers;
}

/// The plan of given layers: slots tightened to their largest member.
CheckpointPlan planOf(const CheckpointProblem &p,
                      const std::vector<int64_t> &bpos,
                      CheckpointStrategy strategy,
                      std::vector<std::vector<int64_t>> layers) {
  CheckpointPlan plan;
  plan.strategy = strategy;
  const size_t n = p.savedMBPerLayer.size();
  plan.slots.assign(n + static_cast<size_t>(p.stages) - 1, 0);
  for (int64_t s = 0; s < p.stages; ++s)
    for (size_t k = 0; k < n; ++k) {
      int64_t &slot =
          plan.slots[static_cast<size_t>(bpos[k] + p.stages - 1 - s)];
      slot = std::max(slot, layers[static_cast<size_t>(s)][k]);
    }
  for (int64_t c : plan.slots)
    plan.recomputeLayers += c;
  plan.recomputeMs =
      p.layerForwardMs * static_cast<double>(plan.recomputeLayers);
  plan.layers = std::move(layers);
  plan.peakMB = peakActivationMB(p, plan.layers);
  return plan;
}

/// Owns a Clp_Simplex.
struct ClpModelHandle {
  Clp_Simplex *model = Clp_newModel();
  ClpModelHandle() = default;
  ClpModelHandle(const ClpModelHandle &) = delete;
  ClpModelHandle &operator=(const ClpModelHandle &) = delete;
  ~ClpModelHandle() { Clp_deleteModel(model); }
};

/// What CBC returned: the slots (empty when it found nothing) and its stats.
struct CbcOutcome {
  std::vector<int64_t> slots;
  std::vector<double> relaxed; // the LP solve: the slots' values
  double lowerBound = 0;
  bool provenOptimal = false;
  bool timeLimitReached = false;
  int64_t nodes = 0, columns = 0, rows = 0;
};

/// Builds and solves the slot model: as an LP with CLP (`integer` false,
/// for the bound and the rounding start) or as the ILP with CBC from
/// `start` (slot values).
CbcOutcome solveSlots(const CheckpointProblem &p,
                      const std::vector<int64_t> &bpos,
                      const std::vector<Window> &binding, bool integer,
                      const std::vector<int64_t> &start,
                      const CheckpointOptions &options) {
  const size_t n = p.savedMBPerLayer.size();
  const size_t numSlots = n + static_cast<size_t>(p.stages) - 1;
  const double cap = static_cast<double>(p.layersPerStage);

  // The model is assembled here and handed to the solver at once: adding
  // rows one by one made CBC re-grow its matrix every time, which cost as
  // much as the LP solves.
  std::vector<double> colUpper(numSlots, cap);
  std::vector<double> objective(numSlots, 1.0);
  std::vector<std::vector<std::pair<int, double>>> columns(numSlots);
  std::vector<double> rowLower, rowUpper;
  const double infinity = std::numeric_limits<double>::infinity();
  auto addColumn = [&](double upper, double cost) {
    colUpper.push_back(upper);
    objective.push_back(cost);
    columns.emplace_back();
    return static_cast<int>(columns.size() - 1);
  };
  auto addRow = [&](const std::vector<std::pair<int, double>> &terms,
                    double lower, double upper) {
    const int row = static_cast<int>(rowLower.size());
    for (const auto &[col, coef] : terms)
      columns[static_cast<size_t>(col)].emplace_back(row, coef);
    rowLower.push_back(lower);
    rowUpper.push_back(upper);
  };
  auto slotCol = [&](int64_t stage, size_t k) {
    return static_cast<int>(bpos[k] + p.stages - 1 - stage);
  };

  // The column that stands for x(p, k). Monotone: a continuous column below
  // its own slot and below x(p - 1, k), hence below the slots of stages
  // 0..p (stage 0 reads its slot directly): two rows per column instead of
  // p + 1.
  std::vector<std::vector<int>> xCol(static_cast<size_t>(p.stages),
                                     std::vector<int>(n, -1));
  std::vector<std::pair<int64_t, size_t>> xOf; // (stage, chunk) per x column
  std::function<int(int64_t, size_t)> columnOf = [&](int64_t stage,
                                                     size_t k) -> int {
    if (!options.monotoneAcrossStages || stage == 0)
      return slotCol(stage, k);
    int &col = xCol[static_cast<size_t>(stage)][k];
    if (col < 0) {
      const int below = columnOf(stage - 1, k);
      col = addColumn(cap, 0.0);
      xOf.emplace_back(stage, k);
      addRow({{col, 1.0}, {below, -1.0}}, -infinity, 0.0);
      addRow({{col, 1.0}, {slotCol(stage, k), -1.0}}, -infinity, 0.0);
    }
    return col;
  };

  // Memory: sum_k F[k] x(p, k) >= sum_k I_p[k] - budget.
  std::vector<std::pair<int, double>> terms;
  for (const Window &w : binding) {
    terms.clear();
    for (int64_t k : w.chunks)
      terms.emplace_back(columnOf(w.stage, static_cast<size_t>(k)),
                         p.savedMBPerLayer[static_cast<size_t>(k)]);
    addRow(terms, w.baseMB - p.budgetMB[static_cast<size_t>(w.stage)],
           infinity);
  }

  // Compressed sparse columns.
  const int numCols = static_cast<int>(columns.size());
  const int numRows = static_cast<int>(rowLower.size());
  std::vector<CoinBigIndex> colStart{0};
  std::vector<int> rowIndex;
  std::vector<double> values;
  for (const std::vector<std::pair<int, double>> &col : columns) {
    for (const auto &[row, coef] : col) {
      rowIndex.push_back(row);
      values.push_back(coef);
    }
    colStart.push_back(static_cast<CoinBigIndex>(rowIndex.size()));
  }
  const std::vector<double> colLower(static_cast<size_t>(numCols), 0.0);

  CbcOutcome out;
  out.columns = numCols;
  out.rows = numRows;
  std::lock_guard<std::mutex> lock(solver::cbcSolveMutex());
  if (!integer) {
    // The LP with CLP's dual simplex directly (our slack basis is dual
    // feasible: costs are non-negative); through CBC the same solve took
    // twice as long.
    ClpModelHandle lp;
    Clp_setLogLevel(lp.model, 0);
    Clp_loadProblem(lp.model, numCols, numRows, colStart.data(),
                    rowIndex.data(), values.data(), colLower.data(),
                    colUpper.data(), objective.data(), rowLower.data(),
                    rowUpper.data());
    // No time limit: an LP always finishes, and CLP would read the clock at
    // every iteration to enforce one.
    Clp_dual(lp.model, 0);
    if (Clp_isProvenOptimal(lp.model)) {
      const double *x = Clp_getColSolution(lp.model);
      out.relaxed.assign(x, x + numSlots);
      out.lowerBound = Clp_getObjValue(lp.model);
    }
    return out;
  }

  solver::CbcModelHandle h;
  Cbc_Model *model = h.model;
  // Our rounded LP solution is the incumbent; the search only has to
  // improve on it (cuts and strong branching cost more than they gain on
  // this covering problem).
  solver::configureDeterministic(model, options.leanSearch);
  Cbc_loadProblem(model, numCols, numRows, colStart.data(), rowIndex.data(),
                  values.data(), colLower.data(), colUpper.data(),
                  objective.data(), rowLower.data(), rowUpper.data());
  for (size_t t = 0; t < numSlots; ++t)
    Cbc_setInteger(model, static_cast<int>(t));

  if (start.size() == numSlots) {
    // x(p, k) at the start: the least slot of stages 0..p.
    std::vector<int> idx(static_cast<size_t>(numCols));
    std::vector<double> val(static_cast<size_t>(numCols));
    for (int i = 0; i < numCols; ++i)
      idx[static_cast<size_t>(i)] = i;
    for (size_t t = 0; t < numSlots; ++t)
      val[t] = static_cast<double>(start[t]);
    for (size_t i = 0; i < xOf.size(); ++i) {
      const auto [stage, k] = xOf[i];
      int64_t least = start[static_cast<size_t>(slotCol(0, k))];
      for (int64_t s = 1; s <= stage; ++s)
        least = std::min(least, start[static_cast<size_t>(slotCol(s, k))]);
      val[numSlots + i] = static_cast<double>(least);
    }
    Cbc_setMIPStartI(model, numCols, idx.data(), val.data());
  }
  if (options.timeLimitSeconds > 0)
    Cbc_setMaximumSeconds(model, options.timeLimitSeconds);
  if (options.nodeLimit > 0)
    Cbc_setMaximumNodes(model, static_cast<int>(options.nodeLimit));
  if (options.relativeGap > 0)
    Cbc_setAllowableFractionGap(model, options.relativeGap);

  Cbc_solve(model);
  if (const double *x = Cbc_bestSolution(model)) {
    out.slots.resize(numSlots);
    for (size_t t = 0; t < numSlots; ++t)
      out.slots[t] =
          std::clamp<int64_t>(std::llround(x[t]), 0, p.layersPerStage);
  }
  out.nodes = Cbc_getNodeCount(model);
  out.lowerBound = Cbc_getBestPossibleObjValue(model);
  out.provenOptimal = Cbc_isProvenOptimal(model) != 0;
  out.timeLimitReached = Cbc_isSecondsLimitReached(model) != 0;
  return out;
}

/// The MB of every binding window under slot values that change one at a
/// time: lowering a slot touches only the (stage, chunk) pairs it caps and
/// the windows that hold them, so a trial costs a few windows, not all.
class SlotMemory {
public:
  SlotMemory(const CheckpointProblem &p, const std::vector<int64_t> &bpos,
             const std::vector<Window> &binding, std::vector<int64_t> slots,
             bool monotone)
      : p_(p), bpos_(bpos), binding_(binding), monotone_(monotone),
        slots_(std::move(slots)),
        layers_(layersFromSlots(p, bpos, slots_, monotone)),
        mb_(binding.size(), 0), windowsOf_(static_cast<size_t>(p.stages)),
        chunkAt_(bpos.size(), 0) {
    const size_t n = bpos.size();
    for (size_t k = 0; k < n; ++k)
      chunkAt_[static_cast<size_t>(bpos[k])] = static_cast<int64_t>(k);
    for (std::vector<std::vector<size_t>> &row : windowsOf_)
      row.assign(n, {});
    for (size_t w = 0; w < binding.size(); ++w) {
      for (int64_t k : binding[w].chunks)
        windowsOf_[static_cast<size_t>(binding[w].stage)]
                  [static_cast<size_t>(k)]
                      .push_back(w);
      mb_[w] = windowMB(p, binding[w], layers_);
    }
  }

  const std::vector<int64_t> &slots() const { return slots_; }

  bool allFit() const {
    for (size_t w = 0; w < binding_.size(); ++w)
      if (!fitsBudget(mb_[w], budget(w)))
        return false;
    return true;
  }

  /// Lowers slot t by one when every window still fits; else leaves it.
  bool tryLower(size_t t) {
    if (slots_[t] <= 0)
      return false;
    --slots_[t];
    touched_.clear();
    update(t);
    bool fits = true;
    for (size_t w : touched_)
      fits = fits && fitsBudget(mb_[w], budget(w));
    if (!fits) {
      ++slots_[t];
      touched_.clear();
      update(t);
    }
    return fits;
  }

private:
  double budget(size_t w) const {
    return p_.budgetMB[static_cast<size_t>(binding_[w].stage)];
  }

  /// Re-derives the layers of the chunks slot t caps and the MB of the
  /// windows holding a (stage, chunk) whose layers changed.
  void update(size_t t) {
    const int64_t n = static_cast<int64_t>(bpos_.size());
    for (int64_t s = 0; s < p_.stages; ++s) {
      const int64_t b = static_cast<int64_t>(t) - (p_.stages - 1 - s);
      if (b < 0 || b >= n)
        continue;
      const size_t k = static_cast<size_t>(chunkAt_[static_cast<size_t>(b)]);
      int64_t cap = std::numeric_limits<int64_t>::max();
      for (int64_t q = 0; q < p_.stages; ++q) {
        const int64_t slot =
            slots_[static_cast<size_t>(bpos_[k] + p_.stages - 1 - q)];
        cap = monotone_ ? std::min(cap, slot) : slot;
        int64_t &l = layers_[static_cast<size_t>(q)][k];
        if (l == cap)
          continue;
        l = cap;
        for (size_t w : windowsOf_[static_cast<size_t>(q)][k]) {
          mb_[w] = windowMB(p_, binding_[w], layers_);
          touched_.push_back(w);
        }
      }
    }
  }

  const CheckpointProblem &p_;
  const std::vector<int64_t> &bpos_;
  const std::vector<Window> &binding_;
  bool monotone_;
  std::vector<int64_t> slots_;
  std::vector<std::vector<int64_t>> layers_;
  std::vector<double> mb_;                                  // per window
  std::vector<std::vector<std::vector<size_t>>> windowsOf_; // [stage][chunk]
  std::vector<int64_t> chunkAt_; // the chunk at each backward position
  std::vector<size_t> touched_;
};

/// The LP solution rounded up, then each slot lowered as far as memory
/// allows, the slots rounded up most first (ties: earlier slot). nullopt
/// when the rounded solution does not fit (it always should).
std::optional<std::vector<int64_t>>
roundRelaxation(const CheckpointProblem &p, const std::vector<int64_t> &bpos,
                const std::vector<Window> &binding,
                const std::vector<double> &relaxed, bool monotone) {
  std::vector<int64_t> slots(relaxed.size());
  for (size_t t = 0; t < relaxed.size(); ++t)
    slots[t] =
        std::clamp<int64_t>(static_cast<int64_t>(std::ceil(relaxed[t] - 1e-6)),
                            0, p.layersPerStage);
  std::vector<size_t> order(slots.size());
  for (size_t t = 0; t < order.size(); ++t)
    order[t] = t;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return static_cast<double>(slots[a]) - relaxed[a] >
           static_cast<double>(slots[b]) - relaxed[b];
  });
  SlotMemory memory(p, bpos, binding, std::move(slots), monotone);
  if (!memory.allFit())
    return std::nullopt;
  for (size_t t : order)
    while (memory.tryLower(t)) {
    }
  return memory.slots();
}

} // namespace

const char *strategyName(CheckpointStrategy s) {
  switch (s) {
  case CheckpointStrategy::Adaptive:
    return "adaptive";
  case CheckpointStrategy::None:
    return "none";
  case CheckpointStrategy::Full:
    return "full";
  case CheckpointStrategy::Uniform:
    return "uniform";
  }
  return "?";
}

Result<CheckpointProblem> makeCheckpointProblem(
    const ActivationModel &model, const std::vector<ChunkFootprint> &chunks,
    const std::vector<std::vector<int64_t>> &stageOrders, double memoryMB,
    const std::vector<double> &modelStatesMB, double layerForwardMs) {
  using R = Result<CheckpointProblem>;
  if (std::string why = activationModelProblem(model); !why.empty())
    return R::fail(why);
  if (static_cast<int64_t>(modelStatesMB.size()) != model.stages)
    return R::fail("model states are given for " +
                   std::to_string(modelStatesMB.size()) + " stages, not " +
                   std::to_string(model.stages));
  for (size_t k = 0; k < chunks.size(); ++k)
    if (chunks[k].tokens < 1 || chunks[k].kvTokens < 0 ||
        chunks[k].kvTokens > chunks[k].tokens)
      return R::fail("chunk " + std::to_string(k) +
                     " needs at least one token and at most that many "
                     "K/V tokens");
  CheckpointProblem p;
  p.stages = model.stages;
  p.layersPerStage = layersPerStage(model);
  p.stageOrders = stageOrders;
  p.layerForwardMs = layerForwardMs;
  for (int64_t s = 0; s < model.stages; ++s) {
    std::vector<double> base;
    for (const ChunkFootprint &c : chunks)
      base.push_back(baseActivationMB(model, s, c));
    p.baseMB.push_back(std::move(base));
    p.budgetMB.push_back(memoryMB - modelStatesMB[static_cast<size_t>(s)]);
  }
  for (const ChunkFootprint &c : chunks)
    p.savedMBPerLayer.push_back(savedMBPerCheckpointedLayer(model, c));
  if (std::string why = checkpointProblemViolation(p); !why.empty())
    return R::fail(why);
  return R::ok(std::move(p));
}

std::string checkpointProblemViolation(const CheckpointProblem &p) {
  if (p.stages < 1)
    return "a pipeline needs at least one stage";
  const size_t stages = static_cast<size_t>(p.stages);
  const size_t n = p.savedMBPerLayer.size();
  if (n == 0)
    return "a pipeline needs at least one chunk";
  if (p.stageOrders.size() != stages || p.baseMB.size() != stages ||
      p.budgetMB.size() != stages)
    return "orders, activation MB and budgets must be given for each of the " +
           std::to_string(p.stages) + " stages";
  if (p.layersPerStage < 0)
    return "layers per stage must be non-negative";
  if (!std::isfinite(p.layerForwardMs) || p.layerForwardMs < 0)
    return "a layer's forward time must be finite and non-negative";
  for (size_t k = 0; k < n; ++k)
    if (!std::isfinite(p.savedMBPerLayer[k]) || !(p.savedMBPerLayer[k] > 0))
      return "checkpointing a layer of chunk " + std::to_string(k) +
             " saves no memory (the layer keeps at least what it would "
             "store)";
  std::vector<int64_t> backwards;
  for (size_t s = 0; s < stages; ++s) {
    if (p.baseMB[s].size() != n)
      return "stage " + std::to_string(s) + " has activation MB for " +
             std::to_string(p.baseMB[s].size()) + " chunks, not " +
             std::to_string(n);
    for (double mb : p.baseMB[s])
      if (!std::isfinite(mb) || mb < 0)
        return "activation MB must be finite and non-negative";
    if (!std::isfinite(p.budgetMB[s]))
      return "budgets must be finite";
    const std::vector<int64_t> &order = p.stageOrders[s];
    std::vector<int> state(n, 0); // 0 new, 1 forwarded, 2 done
    std::vector<int64_t> mine;
    for (int64_t op : order) {
      const int64_t k = op >= 0 ? op : -op - 1;
      if (k >= static_cast<int64_t>(n))
        return "stage " + std::to_string(s) + " runs chunk " +
               std::to_string(k) + " of only " + std::to_string(n);
      int &st = state[static_cast<size_t>(k)];
      if (op >= 0 ? st != 0 : st != 1)
        return "stage " + std::to_string(s) + " must run chunk " +
               std::to_string(k) + "'s forward once, then its backward once";
      ++st;
      if (op < 0)
        mine.push_back(k);
    }
    if (mine.size() != n)
      return "stage " + std::to_string(s) + " does not run every chunk";
    if (s == 0)
      backwards = mine;
    else if (mine != backwards)
      return "stage " + std::to_string(s) +
             " runs the backwards in another order than stage 0";
  }
  return "";
}

std::vector<int64_t> backwardPositions(const CheckpointProblem &p) {
  std::vector<int64_t> pos(p.savedMBPerLayer.size(), 0);
  if (p.stageOrders.empty())
    return pos;
  int64_t next = 0;
  for (int64_t op : p.stageOrders.front())
    if (op < 0 && static_cast<size_t>(-op - 1) < pos.size())
      pos[static_cast<size_t>(-op - 1)] = next++;
  return pos;
}

int64_t checkpointSlot(const CheckpointProblem &p, int64_t stage,
                       int64_t chunk) {
  return backwardPositions(p)[static_cast<size_t>(chunk)] + p.stages - 1 -
         stage;
}

std::vector<std::vector<int64_t>>
inFlightWindows(const std::vector<int64_t> &stageOrder) {
  std::vector<std::vector<int64_t>> out;
  std::set<int64_t> inFlight;
  for (size_t i = 0; i < stageOrder.size(); ++i) {
    const int64_t op = stageOrder[i];
    if (op < 0) {
      inFlight.erase(-op - 1);
      continue;
    }
    inFlight.insert(op);
    if (i + 1 == stageOrder.size() || stageOrder[i + 1] < 0)
      out.emplace_back(inFlight.begin(), inFlight.end());
  }
  return out;
}

std::vector<double>
peakActivationMB(const CheckpointProblem &p,
                 const std::vector<std::vector<int64_t>> &layers) {
  std::vector<double> peak(static_cast<size_t>(std::max<int64_t>(p.stages, 0)),
                           0);
  for (const Window &w : allWindows(p))
    peak[static_cast<size_t>(w.stage)] =
        std::max(peak[static_cast<size_t>(w.stage)], windowMB(p, w, layers));
  return peak;
}

std::string checkpointPlanViolation(const CheckpointProblem &p,
                                    const CheckpointPlan &plan) {
  if (std::string why = checkpointProblemViolation(p); !why.empty())
    return why;
  const size_t n = p.savedMBPerLayer.size();
  if (plan.slots.size() != n + static_cast<size_t>(p.stages) - 1)
    return "a plan has n + stages - 1 = " +
           std::to_string(n + static_cast<size_t>(p.stages) - 1) +
           " slots, not " + std::to_string(plan.slots.size());
  int64_t sum = 0;
  for (int64_t c : plan.slots) {
    if (c < 0 || c > p.layersPerStage)
      return "slot value " + std::to_string(c) + " outside [0, " +
             std::to_string(p.layersPerStage) + "]";
    sum += c;
  }
  if (sum != plan.recomputeLayers)
    return "recomputeLayers is not the sum of the slots";
  if (plan.layers.size() != static_cast<size_t>(p.stages))
    return "layers must be given per stage";
  const std::vector<int64_t> bpos = backwardPositions(p);
  for (int64_t s = 0; s < p.stages; ++s) {
    const std::vector<int64_t> &row = plan.layers[static_cast<size_t>(s)];
    if (row.size() != n)
      return "layers must be given per chunk";
    for (size_t k = 0; k < n; ++k) {
      const int64_t slot =
          plan.slots[static_cast<size_t>(bpos[k] + p.stages - 1 - s)];
      if (row[k] < 0 || row[k] > slot)
        return "stage " + std::to_string(s) + " checkpoints " +
               std::to_string(row[k]) + " layers of chunk " +
               std::to_string(k) + ", outside [0, its slot's " +
               std::to_string(slot) + "]";
    }
  }
  return firstOverflow(p, allWindows(p), plan.layers, "as planned");
}

Result<CheckpointPlan> planCheckpointing(const CheckpointProblem &p,
                                         CheckpointStrategy strategy,
                                         const CheckpointOptions &options) {
  using R = Result<CheckpointPlan>;
  if (std::string why = checkpointProblemViolation(p); !why.empty())
    return R::fail(why);
  const std::vector<Window> windows = allWindows(p);
  const std::vector<int64_t> bpos = backwardPositions(p);
  auto fixedPlan = [&](int64_t l, const std::string &how) -> R {
    std::vector<std::vector<int64_t>> layers = uniformLayers(p, l);
    if (std::string why = firstOverflow(p, windows, layers, how); !why.empty())
      return R::fail(why);
    return R::ok(planOf(p, bpos, strategy, std::move(layers)));
  };

  switch (strategy) {
  case CheckpointStrategy::None:
    return fixedPlan(0, "without checkpointing");
  case CheckpointStrategy::Full:
    return fixedPlan(p.layersPerStage, "with every layer checkpointed");
  case CheckpointStrategy::Uniform:
  case CheckpointStrategy::Adaptive:
    break;
  }

  // Even full checkpointing must fit.
  if (std::string why =
          firstOverflow(p, windows, uniformLayers(p, p.layersPerStage),
                        "with every layer checkpointed");
      !why.empty())
    return R::fail(why);
  // The least uniform count that fits (memory falls as l grows, F > 0).
  int64_t uniform = 0;
  while (uniform < p.layersPerStage &&
         !firstOverflow(p, windows, uniformLayers(p, uniform), "").empty())
    ++uniform;
  if (strategy == CheckpointStrategy::Uniform) {
    if (options.uniformLayers >= 0) {
      if (options.uniformLayers > p.layersPerStage)
        return R::fail("cannot checkpoint " +
                       std::to_string(options.uniformLayers) + " layers of a " +
                       std::to_string(p.layersPerStage) + "-layer stage");
      return fixedPlan(options.uniformLayers,
                       "with " + std::to_string(options.uniformLayers) +
                           " layers checkpointed");
    }
    return fixedPlan(uniform, "");
  }

  std::vector<Window> binding;
  for (const Window &w : windows)
    if (!fitsBudget(w.baseMB, p.budgetMB[static_cast<size_t>(w.stage)]))
      binding.push_back(w);
  if (binding.empty()) {
    CheckpointPlan plan = planOf(p, bpos, strategy, uniformLayers(p, 0));
    plan.provenOptimal = true;
    return R::ok(std::move(plan));
  }

  // The incumbent: the uniform plan, or the rounded LP solution when
  // better. CBC then searches from it; the result is never worse.
  const size_t numSlots =
      p.savedMBPerLayer.size() + static_cast<size_t>(p.stages) - 1;
  CheckpointPlan plan = planOf(p, bpos, strategy, uniformLayers(p, uniform));
  plan.fromWarmStart = true;
  std::vector<int64_t> start(numSlots, uniform);
  CbcOutcome lp = solveSlots(p, bpos, binding, false, {}, options);
  if (!lp.relaxed.empty())
    if (std::optional<std::vector<int64_t>> rounded = roundRelaxation(
            p, bpos, binding, lp.relaxed, options.monotoneAcrossStages)) {
      CheckpointPlan r = planOf(
          p, bpos, strategy,
          layersFromSlots(p, bpos, *rounded, options.monotoneAcrossStages));
      if (r.recomputeLayers < plan.recomputeLayers) {
        plan = std::move(r);
        plan.fromWarmStart = true;
        start = plan.slots;
      }
    }
  const double bound = std::ceil(lp.lowerBound - 1e-6);
  CbcOutcome cbc;
  cbc.lowerBound = bound;
  cbc.columns = lp.columns;
  cbc.rows = lp.rows;
  const double gap = (static_cast<double>(plan.recomputeLayers) - bound) /
                     std::max(1.0, static_cast<double>(plan.recomputeLayers));
  if (!options.branchAndBound && !lp.relaxed.empty()) {
    // The search's costing: the start as it is, with the LP's bound.
    cbc.provenOptimal = gap <= options.relativeGap;
  } else if (lp.relaxed.empty() || gap > options.relativeGap) {
    cbc = solveSlots(p, bpos, binding, true, start, options);
    if (!cbc.slots.empty()) {
      std::vector<std::vector<int64_t>> layers =
          layersFromSlots(p, bpos, cbc.slots, options.monotoneAcrossStages);
      if (firstOverflow(p, windows, layers, "").empty()) {
        CheckpointPlan solved = planOf(p, bpos, strategy, std::move(layers));
        if (solved.recomputeLayers < plan.recomputeLayers) {
          plan = std::move(solved);
          plan.fromWarmStart = false;
        }
      }
    }
    cbc.lowerBound = std::max(cbc.lowerBound, bound);
  } else {
    cbc.provenOptimal = true; // within the gap of the LP bound
  }
  plan.solvedByCbc = true;
  plan.lowerBoundLayers = std::clamp(cbc.lowerBound, 0.0,
                                     static_cast<double>(plan.recomputeLayers));
  plan.provenOptimal = cbc.provenOptimal;
  plan.timeLimitReached = cbc.timeLimitReached;
  plan.nodes = cbc.nodes;
  plan.columns = cbc.columns;
  plan.rows = cbc.rows;
  return R::ok(std::move(plan));
}

} // namespace plexus::ckpt
