//===- JobRules.cpp - Whether a job's strategy fits model and fabric ------===//
//
// The rules and the reasons behind them are in docs/cost-model.md ("Job
// rules"). Rules that need model arithmetic (heads, layers, bytes) run only
// on a shape that passes checkTransformerShape: the caller reports the shape's
// own problems, and a broken shape would make these messages meaningless.
//
//===----------------------------------------------------------------------===//

#include "dialects/Common/JobRules.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace plexus::cost {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
// Mixed-precision Adam: bf16 weights (2) + bf16 gradients (2) + fp32 master
// weights, momentum and variance (4 + 4 + 4).
constexpr int64_t kTrainBytesPerParameter = 16;
constexpr int64_t kWeightAndGradBytes = 4;
constexpr int64_t kWeightBytes = 2;

// a * b for non-negative a and b, saturating at int64's maximum so that
// absurd degrees give a clear message instead of an overflow.
int64_t mulSat(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  if (a > kInt64Max / b)
    return kInt64Max;
  return a * b;
}

// ceil(a / b) for a >= 0, b >= 1.
int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

std::string num(int64_t v) { return std::to_string(v); }

// Memory in GB (10^9 bytes), the unit of datasheets and of most specs.
std::string gigabytes(double bytes) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.2f GB", bytes / 1e9);
  return text;
}

// The field to blame for a product of degrees that does not divide the chip
// count: the largest degree (the first of equals), as the likeliest typo.
struct NamedDegree {
  const char *field;
  int64_t value;
};
const char *largestDegree(const std::vector<NamedDegree> &degrees) {
  const NamedDegree *best = &degrees.front();
  for (const NamedDegree &d : degrees)
    if (d.value > best->value)
      best = &d;
  return best->field;
}

// "sp * pp * tp * cp (2 * 4 * 2 * 1 = 16)".
std::string productText(const std::vector<NamedDegree> &degrees,
                        int64_t product) {
  std::string names, values;
  for (const NamedDegree &d : degrees) {
    if (!names.empty()) {
      names += " * ";
      values += " * ";
    }
    names += d.field;
    values += num(d.value);
  }
  return names + " (" + values + " = " + num(product) + ")";
}

void checkChips(int64_t chips, std::vector<JobProblem> &problems) {
  if (chips < 1)
    problems.push_back({"chips", "the job needs at least one chip, but the "
                                 "fabric has " +
                                     num(chips)});
}

} // namespace

int64_t layerResidentBytes(const TransformerShape &s, bool training,
                           int64_t shardWays) {
  int64_t perParameter =
      training ? kTrainBytesPerParameter : bytesPerElement(s.dtype);
  return ceilDiv(maxLayerParameters(s) * perParameter,
                 std::max<int64_t>(1, shardWays));
}

int64_t trainLayerResidentBytes(const TransformerShape &s, int64_t tp,
                                int64_t zero, int64_t dataParallel) {
  int64_t params = maxLayerParameters(s);
  tp = std::max<int64_t>(1, tp);
  int64_t allWays = mulSat(tp, std::max<int64_t>(1, dataParallel));
  auto split = [&](int64_t replicatedBytes) {
    // Bytes per parameter held whole on every data-parallel rank (sharded by
    // tp only) plus the rest, sharded by tp * dataParallel.
    return ceilDiv(params * replicatedBytes, tp) +
           ceilDiv(params * (kTrainBytesPerParameter - replicatedBytes),
                   allWays);
  };
  if (zero <= 0)
    return ceilDiv(params * kTrainBytesPerParameter, tp);
  if (zero == 1)
    return split(kWeightAndGradBytes);
  if (zero == 2)
    return split(kWeightBytes);
  return ceilDiv(params * kTrainBytesPerParameter, allWays);
}

int64_t defaultMemoryReserveBytes(const ChipSpec &chip) {
  return kMemoryReserveFixedBytes +
         static_cast<int64_t>(kMemoryReserveFraction *
                              static_cast<double>(chip.hbmBytes));
}

int64_t usableMemoryBytes(const ChipSpec &chip, int64_t memoryLimitBytes,
                          int64_t reserveBytes) {
  const int64_t reserve =
      reserveBytes >= 0 ? reserveBytes : defaultMemoryReserveBytes(chip);
  int64_t usable = std::max<int64_t>(0, chip.hbmBytes - reserve);
  if (memoryLimitBytes > 0)
    usable = std::min(usable, memoryLimitBytes);
  return usable;
}

std::vector<JobProblem> checkTrainJob(const TransformerShape &model,
                                      const ChipSpec &chip, int64_t chips,
                                      const TrainDegrees &d) {
  std::vector<JobProblem> problems;
  auto report = [&](const char *field, std::string message) {
    problems.push_back({field, std::move(message)});
  };
  bool shapeOk = checkTransformerShape(model).empty();
  checkChips(chips, problems);

  // Degrees on their own.
  auto staticOrPlanner = [&](const char *field, int64_t value) {
    if (value < 0)
      report(field, std::string(field) + " (" + num(value) +
                        ") must be at least 1, or 0 to let the planner "
                        "choose it");
  };
  auto atLeastOne = [&](const char *field, int64_t value) {
    if (value < 1)
      report(field,
             std::string(field) + " (" + num(value) + ") must be at least 1");
  };
  staticOrPlanner("sp", d.sp);
  staticOrPlanner("pp", d.pp);
  atLeastOne("tp", d.tp);
  atLeastOne("cp", d.cp);
  bool zeroOk = d.zero >= 0 && d.zero <= 3;
  if (!zeroOk)
    report("zero",
           "zero (" + num(d.zero) + ") must be a ZeRO stage: 0, 1, 2 or 3");
  bool degreesOk = d.sp >= 0 && d.pp >= 0 && d.tp >= 1 && d.cp >= 1;

  // The memory limit against the chip.
  bool limitOk = true;
  if (d.memoryLimitBytes < 0) {
    limitOk = false;
    report("memory_limit", "memory_limit (" + num(d.memoryLimitBytes) +
                               " bytes) must not be negative");
  } else if (d.memoryLimitBytes > chip.hbmBytes) {
    report("memory_limit", "memory_limit (" +
                               gigabytes(double(d.memoryLimitBytes)) +
                               ") exceeds the HBM of " + chip.name + " (" +
                               gigabytes(double(chip.hbmBytes)) + ")");
  }
  if (d.memoryReserveBytes >= chip.hbmBytes)
    report("memory_reserve", "memory_reserve (" +
                                 gigabytes(double(d.memoryReserveBytes)) +
                                 ") leaves nothing of the HBM of " + chip.name +
                                 " (" + gigabytes(double(chip.hbmBytes)) + ")");

  // Degrees against the model.
  if (shapeOk) {
    bool spDividesHeads = d.sp < 1 || model.heads % d.sp == 0;
    bool tpDividesHeads = d.tp < 1 || model.heads % d.tp == 0;
    if (!spDividesHeads)
      report("sp", "sp (" + num(d.sp) + ") must divide heads (" +
                       num(model.heads) +
                       "): Ulysses gives each rank heads / sp attention "
                       "heads");
    if (!tpDividesHeads)
      report("tp", "tp (" + num(d.tp) + ") must divide heads (" +
                       num(model.heads) +
                       "): tensor parallelism splits attention by heads");
    if (d.sp >= 1 && d.tp >= 1 && spDividesHeads && tpDividesHeads) {
      int64_t spTp = mulSat(d.sp, d.tp);
      if (model.heads % spTp != 0)
        report("sp", "sp * tp (" + num(d.sp) + " * " + num(d.tp) + " = " +
                         num(spTp) + ") must divide heads (" +
                         num(model.heads) +
                         "): each tensor-parallel rank holds heads / tp "
                         "heads, which Ulysses splits sp ways");
    }
    if (d.pp > model.layers)
      report("pp", "pp (" + num(d.pp) + ") must not exceed layers (" +
                       num(model.layers) +
                       "): every pipeline stage needs at least one layer");
  }

  // Degrees against the chip count. A planner-chosen degree counts as 1.
  if (degreesOk && chips >= 1) {
    int64_t sp = std::max<int64_t>(1, d.sp), pp = std::max<int64_t>(1, d.pp);
    std::vector<NamedDegree> degrees = {
        {"sp", sp}, {"pp", pp}, {"tp", d.tp}, {"cp", d.cp}};
    int64_t product = mulSat(mulSat(mulSat(sp, pp), d.tp), d.cp);
    if (chips % product != 0) {
      std::string note = d.sp == 0 || d.pp == 0
                             ? " (a planner-chosen degree counts as 1)"
                             : "";
      report(largestDegree(degrees), productText(degrees, product) +
                                         " must divide the chip count (" +
                                         num(chips) + ")" + note);
    }
  }

  // Can the largest layer be held at all? PP cannot split a layer; TP and
  // ZeRO shard it. A planner-chosen pp counts as 1, the widest ZeRO group.
  if (shapeOk && degreesOk && zeroOk && limitOk && chips >= 1) {
    int64_t pp = std::max<int64_t>(1, d.pp);
    int64_t dataParallel = std::max<int64_t>(1, chips / mulSat(pp, d.tp));
    int64_t need = trainLayerResidentBytes(model, d.tp, d.zero, dataParallel);
    bool explicitLimit =
        d.memoryLimitBytes > 0 && d.memoryLimitBytes <= chip.hbmBytes;
    int64_t limit = explicitLimit ? d.memoryLimitBytes : chip.hbmBytes;
    if (need > limit) {
      std::string sharding = "tp = " + num(d.tp) + ", zero = " + num(d.zero);
      if (d.zero >= 1)
        sharding += " over " + num(dataParallel) + " data-parallel ranks";
      std::string against =
          explicitLimit
              ? "the " + gigabytes(double(limit)) + " memory_limit"
              : "the " + gigabytes(double(limit)) + " HBM of " + chip.name;
      std::string hint = d.zero < 3 ? "raise tp or use zero = 3"
                                    : "raise tp or use more chips";
      report(explicitLimit ? "memory_limit" : "model",
             "the largest layer needs " + gigabytes(double(need)) +
                 " per chip for weights, gradients and Adam states (" +
                 sharding + "), more than " + against + "; " + hint);
    }
  }
  return problems;
}

std::vector<JobProblem> checkServeJob(const TransformerShape &model,
                                      const ChipSpec &chip, int64_t chips,
                                      const ServeDegrees &d) {
  std::vector<JobProblem> problems;
  auto report = [&](const char *field, std::string message) {
    problems.push_back({field, std::move(message)});
  };
  bool shapeOk = checkTransformerShape(model).empty();
  checkChips(chips, problems);

  // 0 leaves a degree to the serving planner, which replays every layout
  // that fits and says why none does; the rules below check fixed degrees.
  const bool ppFixed = d.pp != 0, epFixed = d.ep != 0;
  if (d.pp < 0)
    report("pp", "pp (" + num(d.pp) + ") must be at least 1");
  if (d.ep < 0)
    report("ep", "ep (" + num(d.ep) + ") must be at least 1");
  bool degreesOk = d.pp >= 1 && d.ep >= 1;
  // Written so that NaN fails too.
  bool utilizationOk = d.memoryUtilization > 0 && d.memoryUtilization <= 1;
  if (!utilizationOk) {
    char text[96];
    std::snprintf(text, sizeof(text),
                  "memory_utilization (%g) must be in (0, 1]",
                  d.memoryUtilization);
    report("memory_utilization", text);
  }

  if (shapeOk) {
    if (ppFixed && d.pp > model.layers)
      report("pp", "pp (" + num(d.pp) + ") must not exceed layers (" +
                       num(model.layers) +
                       "): every pipeline stage needs at least one layer");
    if (!epFixed) {
      // the planner takes the divisors of the experts (1 for a dense model)
    } else if (model.isMoE()) {
      if (d.ep >= 1 && model.experts % d.ep != 0)
        report("ep", "ep (" + num(d.ep) + ") must divide experts (" +
                         num(model.experts) + ")");
    } else if (d.ep != 1 && d.ep >= 1) {
      report("ep", "ep (" + num(d.ep) +
                       ") must be 1 for a dense model (experts = 0): there "
                       "are no experts to spread");
    }
  }

  // One fixed degree must still divide the chips.
  if (chips >= 1 && ppFixed != epFixed) {
    const char *name = ppFixed ? "pp" : "ep";
    const int64_t v = ppFixed ? d.pp : d.ep;
    if (v >= 1 && chips % v != 0)
      report(name, std::string(name) + " (" + num(v) +
                       ") must divide the chip count (" + num(chips) + ")");
  }
  if (degreesOk && chips >= 1) {
    std::vector<NamedDegree> degrees = {{"pp", d.pp}, {"ep", d.ep}};
    int64_t product = mulSat(d.pp, d.ep);
    if (chips % product != 0)
      report(largestDegree(degrees), productText(degrees, product) +
                                         " must divide the chip count (" +
                                         num(chips) + ")");
  }

  // Weights against the usable HBM. KV cache and activations come on top;
  // the serving planner accounts for them, this rule only rejects layouts
  // that cannot even hold the weights.
  if (shapeOk && degreesOk && utilizationOk) {
    double usable = d.memoryUtilization * double(chip.hbmBytes);
    char share[160];
    std::snprintf(share, sizeof(share), "%g%% of the %s HBM of %s (%s)",
                  d.memoryUtilization * 100,
                  gigabytes(double(chip.hbmBytes)).c_str(), chip.name.c_str(),
                  gigabytes(usable).c_str());
    int64_t layerBytes = layerResidentBytes(model, /*training=*/false, d.ep);
    if (double(layerBytes) > usable) {
      std::string hint = model.isMoE()
                             ? "raise ep"
                             : "use a chip with more memory or a smaller dtype";
      report(model.isMoE() ? "ep" : "model",
             "the largest layer's weights need " +
                 gigabytes(double(layerBytes)) + " per chip (ep = " +
                 num(d.ep) + "), more than " + share + "; " + hint);
    } else {
      // Approximation: every weight is spread over pp * ep chips, although
      // attention and dense layers are replicated across the EP group.
      int64_t totalBytes =
          totalParameters(model) * bytesPerElement(model.dtype);
      int64_t ways = mulSat(d.pp, d.ep);
      int64_t perChip = ceilDiv(totalBytes, ways);
      if (double(perChip) > usable)
        report("model", "the weights need " + gigabytes(double(perChip)) +
                            " per chip (" + gigabytes(double(totalBytes)) +
                            " in all, spread over pp * ep = " + num(ways) +
                            "), more than " + share + "; raise pp or ep");
    }
  }
  return problems;
}

} // namespace plexus::cost
