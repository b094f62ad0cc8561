//===- EmitCpp.cpp - rt programs to one C++ program -----------------------===//
//
// See EmitCpp.h. The generator first reads the module into plain structs
// (the model, the batch, every rank's ops turned into call lines), reporting
// anything the runtime cannot run on the op at fault, and only then prints.
//
//===----------------------------------------------------------------------===//
#include "codegen/Cpp/EmitCpp.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plx/IR/PlxDialect.h"
#include "dialects/Rt/IR/RtDialect.h"
#include "passes/Simulate/Passes.h"
#include "passes/Simulate/Timeline.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

using namespace mlir;

namespace plexus::codegen {
namespace {

std::string intList(ArrayRef<int64_t> values) {
  std::string text;
  for (auto [i, v] : llvm::enumerate(values))
    text += (i ? ", " : "") + std::to_string(v);
  return text;
}

/// "sp:0-7/2" -> "sp_0_7_s2": a C++ identifier for a communicator.
std::string identifierFor(StringRef name) {
  std::string id;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      id += c;
    else if (c == '/')
      id += "_s";
    else if (id.empty() || id.back() != '_')
      id += '_';
  }
  while (!id.empty() && id.back() == '_')
    id.pop_back();
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])))
    id = "g_" + id;
  return id;
}


/// A sequence/slice list as the runtime's Work literal.
std::string workLiteral(ArrayRef<int64_t> seqs,
                        std::optional<ArrayRef<int64_t>> slices) {
  return "{{" + intList(seqs) + "}, {" + (slices ? intList(*slices) : "") +
         "}}";
}

struct Communicator {
  std::string name, id;
  SmallVector<int64_t> ranks;
};

/// One op as a call: `text` with a kHole for each value that may change
/// from one repetition of a body to the next (layers, bytes, tags, works,
/// checkpointed layers, pending counts), the values in `holes`. `note`
/// ends the line when it is printed on its own (the modelled time).
constexpr char kHole = '\x01';
struct Line {
  enum class Hole : uint8_t {
    Int,     ///< an integer argument
    Work,    ///< a Work: its index in Reading::works
    Comment, ///< a number inside a comment line
  };
  std::string text;
  std::vector<std::pair<Hole, int64_t>> holes;
  std::string note;

  Line &lit(StringRef t) {
    text += t.str();
    return *this;
  }
  Line &num(int64_t v) { return hole(Hole::Int, v); }
  Line &work(int64_t id) { return hole(Hole::Work, id); }
  Line &commented(int64_t v) { return hole(Hole::Comment, v); }
  Line &range(int64_t b, int64_t e) {
    return lit("{").num(b).lit(", ").num(e).lit("}");
  }

private:
  Line &hole(Hole kind, int64_t value) {
    text += kHole;
    holes.emplace_back(kind, value);
    return *this;
  }
};

struct RankCode {
  int64_t rank = 0;
  /// The rank's ops as calls; a send's or receive's peer is written P[k],
  /// the k-th of `peers`, so that ranks whose programs differ only in
  /// their peers (the lanes of a pipeline stage) share one function.
  std::vector<Line> lines;
  std::vector<int64_t> peers;
  int64_t layerBegin = -1, layerEnd = -1; ///< the layers the rank holds
  std::string zeroGroup;                  ///< identifier, or empty
  int64_t stage = -1;
  size_t body = 0; ///< index of its function in Reading::bodies
};

/// One generated function: the lines (and what they hold) that one or
/// more ranks run.
struct Body {
  std::vector<Line> lines;
  std::vector<int64_t> ranks; ///< increasing
  int64_t layerBegin = -1, layerEnd = -1, stage = -1;
  std::string zeroGroup;
  bool usesPeers = false;
};

/// Everything the printer needs, read and checked.
struct Reading {
  rt::ModelOp model;
  rt::BatchOp batch;
  std::map<std::string, Communicator> comms; ///< by name
  std::vector<RankCode> ranks; ///< lines moved into `bodies`
  std::vector<Body> bodies;    ///< in order of their first rank
  std::vector<std::string> works; ///< Work literals, by id
};

/// A line as printed on its own: every hole its value, then the note.
std::string straight(const Line &line, ArrayRef<std::string> works) {
  std::string out;
  size_t h = 0;
  for (char c : line.text) {
    if (c != kHole) {
      out += c;
      continue;
    }
    auto [kind, value] = line.holes[h++];
    out += kind == Line::Hole::Work ? works[value] : std::to_string(value);
  }
  return out + line.note;
}

/// Prints a function body with its repeated runs of lines as loops.
///
/// Two lines have the same shape when they differ at most in their holes'
/// values. At each line the printer looks for the period p (up to
/// kMaxPeriod lines) whose run of equal shapes repeats the most lines (k >=
/// 2 times, p * k >= kMinLoopLines); it prints that run as one loop over a
/// table with a row per repetition, holding the values that change between
/// repetitions (c[0], c[1], ...; a work is an index into kWorks), and the
/// values that do not in the body. Other lines print as they are. Works
/// named by loops are given indices in `workIndex` / `usedWorks`.
class BodyPrinter {
public:
  static constexpr size_t kMaxPeriod = 96, kMinLoopLines = 4;
  static constexpr int kVaries = -2; ///< a comment's number that changes

  BodyPrinter(ArrayRef<std::string> works,
              std::map<int64_t, size_t> &workIndex,
              std::vector<int64_t> &usedWorks)
      : works(works), workIndex(workIndex), usedWorks(usedWorks) {}

  void print(ArrayRef<Line> lines, llvm::raw_ostream &os) {
    std::vector<int> shape(lines.size());
    std::map<StringRef, int> ids;
    for (auto [i, line] : llvm::enumerate(lines))
      shape[i] = ids.try_emplace(line.text, static_cast<int>(ids.size()))
                     .first->second;
    size_t loops = 0;
    for (size_t i = 0; i < lines.size();) {
      size_t bestP = 0, bestK = 0;
      for (size_t p = 1; p <= kMaxPeriod && i + 2 * p <= lines.size(); ++p) {
        size_t k = 1;
        while (i + (k + 1) * p <= lines.size() &&
               std::equal(shape.begin() + i, shape.begin() + i + p,
                          shape.begin() + i + k * p))
          ++k;
        if (k >= 2 && p * k >= kMinLoopLines && p * k > bestP * bestK)
          bestP = p, bestK = k;
      }
      if (!bestP) {
        os << "  " << straight(lines[i], works) << "\n";
        ++i;
        continue;
      }
      printLoop(lines.slice(i, bestP * bestK), bestP, bestK, loops++, os);
      i += bestP * bestK;
    }
  }

private:
  void printLoop(ArrayRef<Line> run, size_t p, size_t k, size_t index,
                 llvm::raw_ostream &os) {
    // Which holes of the body change between repetitions: their columns
    // (holes whose values agree in every repetition share one).
    std::vector<std::vector<int>> column(p);
    std::map<std::vector<int64_t>, int> columnOf;
    std::vector<const std::vector<int64_t> *> columnValues;
    for (size_t j = 0; j < p; ++j) {
      column[j].assign(run[j].holes.size(), -1);
      for (size_t h = 0; h < run[j].holes.size(); ++h) {
        std::vector<int64_t> values(k);
        for (size_t r = 0; r < k; ++r)
          values[r] = run[r * p + j].holes[h].second;
        if (llvm::all_equal(values))
          continue;
        if (run[j].holes[h].first == Line::Hole::Comment) {
          column[j][h] = kVaries; // a number in a comment is not worth a column
          continue;
        }
        if (run[j].holes[h].first == Line::Hole::Work)
          for (int64_t &v : values)
            v = indexOf(v);
        auto [it, fresh] =
            columnOf.try_emplace(values, static_cast<int>(columnValues.size()));
        if (fresh)
          columnValues.push_back(&it->first);
        column[j][h] = it->second;
      }
    }
    const int columns = static_cast<int>(columnValues.size());
    const std::string table = "kRows" + std::to_string(index);
    os << "  // " << k << " repetitions of " << p
       << (p == 1 ? " op" : " ops");
    if (columns) {
      os << ": c holds what changes, a row per repetition\n"
         << "  static const int64_t " << table << "[" << k << "][" << columns
         << "] = {\n";
      for (size_t r = 0; r < k; ++r) {
        os << "      {";
        for (int col = 0; col < columns; ++col)
          os << (col ? ", " : "") << (*columnValues[col])[r];
        os << "},\n";
      }
      os << "  };\n"
         << "  for (const auto &c : " << table << ") {\n";
    } else {
      os << "\n  for (int r = 0; r < " << k << "; ++r) {\n";
    }
    for (size_t j = 0; j < p; ++j) {
      const Line &line = run[j];
      std::string text;
      size_t h = 0;
      for (char ch : line.text) {
        if (ch != kHole) {
          text += ch;
          continue;
        }
        auto [kind, value] = line.holes[h];
        const int col = column[j][h++];
        if (col == kVaries)
          text += "varying";
        else if (col < 0)
          text += kind == Line::Hole::Work ? works[value]
                                           : std::to_string(value);
        else if (kind == Line::Hole::Work)
          text += "kWorks[c[" + std::to_string(col) + "]]";
        else
          text += "c[" + std::to_string(col) + "]";
      }
      os << "    " << text << "\n";
    }
    os << "  }\n";
  }

  int64_t indexOf(int64_t work) {
    auto [it, fresh] = workIndex.try_emplace(work, usedWorks.size());
    if (fresh)
      usedWorks.push_back(work);
    return static_cast<int64_t>(it->second);
  }

  ArrayRef<std::string> works;
  std::map<int64_t, size_t> &workIndex;
  std::vector<int64_t> &usedWorks;
};

/// "0-3, 8, 10-11": increasing ranks as ranges.
std::string rankRanges(const std::vector<int64_t> &ranks) {
  return sim::rankRanges(ranks);
}

class Reader {
public:
  explicit Reader(ModuleOp module) : module(module) {}

  FailureOr<Reading> read() {
    auto models = llvm::to_vector(module.getOps<rt::ModelOp>());
    auto batches = llvm::to_vector(module.getOps<rt::BatchOp>());
    auto programs = llvm::to_vector(module.getOps<rt::ProgramOp>());
    if (programs.empty())
      return module.emitError("emit-cpp: the module has no rt.program; "
                              "lower a planned step first (plx-lower-to-rt)");
    if (models.empty())
      return module.emitError(
          "emit-cpp: the module has no rt.model: the runtime builds dense "
          "decoders only, so plans of mixture-of-experts or "
          "multi-token-prediction models cannot be generated");
    if (batches.empty())
      return module.emitError("emit-cpp: the module has no rt.batch (the "
                              "sequence lengths the programs run)");
    out.model = models.front();
    out.batch = batches.front();
    for (auto group : module.getOps<rt::GroupOp>())
      groups[group.getSymName()] = group.getRanks();
    llvm::sort(programs, [](rt::ProgramOp a, rt::ProgramOp b) {
      return a.getRank() < b.getRank();
    });
    for (auto [i, program] : llvm::enumerate(programs))
      if (program.getRank() != static_cast<int64_t>(i))
        return program.emitOpError("emit-cpp: ranks must number 0..N-1; "
                                   "rank ")
               << i << " has no program";
    for (rt::ProgramOp program : programs)
      if (failed(readProgram(program)))
        return failure();
    return std::move(out);
  }

private:
  /// The identifier of communicator `name` (its rt.group's `ranks`).
  std::string communicator(StringRef name, ArrayRef<int64_t> ranks) {
    auto it = out.comms.find(name.str());
    if (it != out.comms.end())
      return it->second.id;
    std::string id = identifierFor(name);
    if (StringRef(id).starts_with("kRows"))
      id = "g_" + id;
    while (usedIds.count(id))
      id += "_";
    usedIds.insert(id);
    out.comms[name.str()] = {name.str(), id,
                             SmallVector<int64_t>(ranks.begin(), ranks.end())};
    return id;
  }

  /// Tokens of slice `slice` of sequence `seq` under the batch's cuts
  /// (plx-verify-rt has checked that both exist).
  int64_t sliceTokens(int64_t seq, int64_t slice) {
    std::vector<int64_t> bounds = {0};
    if (std::optional<ArrayRef<int64_t>> cuts = out.batch.getCuts())
      for (size_t i = 0; i + 1 < cuts->size(); i += 2)
        if ((*cuts)[i] == seq)
          bounds.push_back((*cuts)[i + 1]);
    ArrayRef<int64_t> lengths = out.batch.getLengths();
    bounds.push_back(seq < static_cast<int64_t>(lengths.size()) ? lengths[seq]
                                                                : 0);
    if (slice + 1 >= static_cast<int64_t>(bounds.size()))
      return 0;
    return bounds[slice + 1] - bounds[slice];
  }

  void holds(RankCode &code, int64_t begin, int64_t end) {
    code.layerBegin =
        code.layerBegin < 0 ? begin : std::min(code.layerBegin, begin);
    code.layerEnd = std::max(code.layerEnd, end);
  }

  /// Layers of `fwd` that a later recompute of the same work rebuilds.
  FailureOr<std::pair<int64_t, int64_t>>
  checkpointed(rt::ComputeOp fwd, ArrayRef<rt::ComputeOp> later) {
    int64_t lo = -1, hi = -1;
    std::set<int64_t> layers;
    for (rt::ComputeOp op : later) {
      if (op.getKind() != rt::ComputeKind::recompute ||
          op.getSeqs() != fwd.getSeqs() || op.getSlices() != fwd.getSlices())
        continue;
      for (int64_t l = std::max(op.getLayerBegin(), fwd.getLayerBegin());
           l < std::min(op.getLayerEnd(), fwd.getLayerEnd()); ++l)
        layers.insert(l);
    }
    if (layers.empty())
      return std::make_pair<int64_t, int64_t>(0, 0);
    lo = *layers.begin();
    hi = *layers.rbegin() + 1;
    if (static_cast<int64_t>(layers.size()) != hi - lo)
      return fwd.emitOpError("emit-cpp: the layers recomputed for this "
                             "forward are not one range");
    return std::make_pair(lo, hi);
  }

  LogicalResult readProgram(rt::ProgramOp program) {
    RankCode code;
    code.rank = program.getRank();
    SmallVector<rt::ComputeOp> computes;
    for (Operation &op : *program.getBody())
      if (auto c = dyn_cast<rt::ComputeOp>(op))
        computes.push_back(c);
    size_t computeIndex = 0;
    for (Operation &op : *program.getBody()) {
      if (auto c = dyn_cast<rt::ComputeOp>(op)) {
        ++computeIndex;
        if (failed(readCompute(
                code, c,
                ArrayRef<rt::ComputeOp>(computes).drop_front(computeIndex))))
          return failure();
      } else if (auto s = dyn_cast<rt::SendOp>(op)) {
        if (failed(readMessage(code, &op, "send", s.getPeer(), s.getBytes(),
                               s.getTag(), s.getCarries(), s.getSeqs(),
                               s.getSlices())))
          return failure();
      } else if (auto r = dyn_cast<rt::RecvOp>(op)) {
        if (failed(readMessage(code, &op, "recv", r.getPeer(), r.getBytes(),
                               r.getTag(), r.getCarries(), r.getSeqs(),
                               r.getSlices())))
          return failure();
      } else if (auto coll = dyn_cast<rt::CollectiveOpInterface>(op)) {
        if (failed(readCollective(code, &op, coll)))
          return failure();
      } else if (auto w = dyn_cast<rt::WaitOp>(op)) {
        code.lines.push_back(
            Line().lit("PLXRT_TRY(x.wait(").num(w.getPending()).lit("));"));
      }
    }
    if (code.layerBegin < 0)
      return program.emitOpError("emit-cpp: rank ")
             << code.rank << " computes nothing and carries no parameters; "
             << "the runtime cannot tell which layers it holds";
    // Ranks with the same lines share a function: its body is stored once.
    std::string key;
    for (const Line &line : code.lines)
      key += straight(line, out.works) + "\n";
    auto [it, fresh] = bodyOf.try_emplace(std::move(key), out.bodies.size());
    if (fresh) {
      Body body;
      body.lines = std::move(code.lines);
      body.layerBegin = code.layerBegin;
      body.layerEnd = code.layerEnd;
      body.stage = code.stage;
      body.zeroGroup = code.zeroGroup;
      body.usesPeers = !code.peers.empty();
      out.bodies.push_back(std::move(body));
    }
    code.lines.clear();
    code.body = it->second;
    out.bodies[code.body].ranks.push_back(code.rank);
    out.ranks.push_back(std::move(code));
    return success();
  }

  LogicalResult readCompute(RankCode &code, rt::ComputeOp c,
                            ArrayRef<rt::ComputeOp> later) {
    if (code.stage >= 0 && code.stage != c.getStage())
      return c.emitOpError("emit-cpp: rank ")
             << code.rank << " runs stages " << code.stage << " and "
             << c.getStage() << "; a rank holds one stage";
    code.stage = c.getStage();
    holds(code, c.getLayerBegin(), c.getLayerEnd());
    std::string sp = "nullptr";
    if (std::optional<StringRef> ulysses = c.getUlysses()) {
      FailureOr<ArrayRef<int64_t>> group = membersOf(c, *ulysses);
      if (failed(group))
        return failure();
      // Ulysses gives each rank an equal part of every slice.
      const int64_t n = static_cast<int64_t>(group->size());
      for (auto [i, seq] : llvm::enumerate(c.getSeqs())) {
        int64_t slice = c.getSlices() ? (*c.getSlices())[i] : 0;
        int64_t tokens = sliceTokens(seq, slice);
        if (tokens % n != 0)
          return c.emitOpError("emit-cpp: slice ")
                 << slice << " of sequence " << seq << " has " << tokens
                 << " tokens, which do not split evenly over the " << n
                 << " ranks of Ulysses group '" << *ulysses
                 << "' (pad the dataset's lengths to a multiple of " << n
                 << ")";
      }
      sp = "&" + communicator(*ulysses, *group);
    }
    // What the plan expects the op to cost, for a reader of one rank's step.
    char modelled[48];
    std::snprintf(modelled, sizeof modelled, "  // modelled %.3g ms",
                  c.getTime() * 1e3);
    const int64_t work = workId(c.getSeqs(), c.getSlices());
    auto call = [&](StringRef name) {
      Line line;
      line.lit("PLXRT_TRY(x.")
          .lit(name)
          .lit("(" + std::to_string(c.getStage()) + ", ")
          .range(c.getLayerBegin(), c.getLayerEnd())
          .lit(", ")
          .work(work)
          .lit(", " + sp);
      line.note = modelled;
      return line;
    };
    switch (c.getKind()) {
    case rt::ComputeKind::fwd: {
      FailureOr<std::pair<int64_t, int64_t>> ckpt = checkpointed(c, later);
      if (failed(ckpt))
        return failure();
      code.lines.push_back(call("forward")
                               .lit(", ")
                               .range(ckpt->first, ckpt->second)
                               .lit("));"));
      break;
    }
    case rt::ComputeKind::recompute:
      code.lines.push_back(call("recompute").lit("));"));
      break;
    case rt::ComputeKind::bwd:
      code.lines.push_back(call("backward").lit("));"));
      break;
    }
    return success();
  }

  LogicalResult readMessage(RankCode &code, Operation *op, StringRef call,
                            int64_t peer, int64_t bytes, int64_t tag,
                            std::optional<rt::ComputeKind> carries,
                            std::optional<ArrayRef<int64_t>> seqs,
                            std::optional<ArrayRef<int64_t>> slices) {
    if (!carries || !seqs)
      return op->emitOpError("emit-cpp: the message does not say what it "
                             "carries (`carries fwd|bwd seqs [..] slices "
                             "[..]`), so no tensor can be chosen for it");
    auto known = llvm::find(code.peers, peer);
    const size_t k = static_cast<size_t>(known - code.peers.begin());
    if (known == code.peers.end())
      code.peers.push_back(peer);
    code.lines.push_back(
        Line()
            .lit("PLXRT_TRY(x." + call.str() + "(P[" + std::to_string(k) +
                 "], ")
            .num(bytes)
            .lit(", ")
            .num(tag)
            .lit(*carries == rt::ComputeKind::bwd ? ", Pass::Backward, "
                                                  : ", Pass::Forward, ")
            .work(workId(*seqs, slices))
            .lit("));"));
    return success();
  }

  LogicalResult readCollective(RankCode &code, Operation *op,
                               rt::CollectiveOpInterface coll) {
    StringRef name = coll.getComm();
    const rt::CommKind kind = coll.getKind();
    const std::string opName = op->getName().stripDialect().str();
    if (kind == rt::CommKind::tp || kind == rt::CommKind::cp)
      return op->emitOpError("emit-cpp: the runtime has no ")
             << (kind == rt::CommKind::tp ? "tensor" : "context")
             << " parallelism; communicator '" << name
             << "' cannot be generated";
    if (isa<rt::AllToAllOp>(op) && kind == rt::CommKind::sp) {
      code.lines.push_back(Line()
                               .lit("// all_to_all " + name.str() + ", ")
                               .commented(coll.getBytes())
                               .lit(" bytes: run inside the Ulysses compute "
                                    "op"));
      return success();
    }
    auto begin = op->getAttrOfType<IntegerAttr>("layer_begin");
    auto end = op->getAttrOfType<IntegerAttr>("layer_end");
    if (!begin || !end ||
        (kind != rt::CommKind::zero && kind != rt::CommKind::dp))
      return op->emitOpError("emit-cpp: ")
             << opName << " over '" << name
             << "' carries nothing the runtime knows (expected parameters "
                "or gradients of a layer range over a zero or dp "
                "communicator, or Ulysses exchanges over an sp one)";
    FailureOr<ArrayRef<int64_t>> group = membersOf(op, name);
    if (failed(group))
      return failure();
    const std::string id = communicator(name, *group);
    holds(code, begin.getInt(), end.getInt());
    std::string call;
    if (isa<rt::AllGatherOp>(op)) {
      call = kind == rt::CommKind::zero ? "gatherParams"
                                        : "updateAndGatherParams";
      if (kind == rt::CommKind::zero) {
        if (!code.zeroGroup.empty() && code.zeroGroup != id)
          return op->emitOpError("emit-cpp: rank ")
                 << code.rank << " shards its parameters over two groups";
        code.zeroGroup = id;
      }
    } else if (isa<rt::ReduceScatterOp>(op)) {
      call = "reduceScatterGrads";
    } else if (isa<rt::AllReduceOp>(op) && kind == rt::CommKind::dp) {
      call = "allReduceGrads";
    } else {
      return op->emitOpError("emit-cpp: ")
             << opName << " over '" << name << "' has no runtime meaning";
    }
    code.lines.push_back(Line()
                             .lit("PLXRT_TRY(x." + call + "(" + id + ", ")
                             .range(begin.getInt(), end.getInt())
                             .lit(", ")
                             .num(coll.getBytes())
                             .lit(op->hasAttr("async") ? "));  // async"
                                                       : "));"));
    return success();
  }

  /// The ranks of the module's rt.group `name`.
  FailureOr<ArrayRef<int64_t>> membersOf(Operation *op, StringRef name) {
    auto it = groups.find(name);
    if (it == groups.end())
      return op->emitOpError("emit-cpp: communicator '")
             << name << "' has no rt.group";
    return it->second;
  }

  /// The id of a work in Reading::works (interned).
  int64_t workId(ArrayRef<int64_t> seqs,
                 std::optional<ArrayRef<int64_t>> slices) {
    std::string literal = workLiteral(seqs, slices);
    auto [it, fresh] = workIds.try_emplace(literal, out.works.size());
    if (fresh)
      out.works.push_back(std::move(literal));
    return static_cast<int64_t>(it->second);
  }

  ModuleOp module;
  Reading out;
  std::map<std::string, size_t> workIds;
  std::map<StringRef, ArrayRef<int64_t>> groups; ///< rt.group name -> ranks
  /// Identifiers the program itself uses (loop rows, tables, the
  /// executor, peers, main's helpers): no communicator takes them.
  std::set<std::string> usedIds = {"c",     "r",      "x",    "P",
                                   "kWorks", "kPeers", "model", "batch",
                                   "main",  "spec"};
  std::map<std::string, size_t> bodyOf; ///< joined lines -> body
};

} // namespace

LogicalResult verifyForCodegen(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(sim::createVerifyRtPass());
  return pm.run(module);
}

LogicalResult emitCpp(ModuleOp module, llvm::raw_ostream &os,
                      const CppOptions &options) {
  FailureOr<Reading> reading = Reader(module).read();
  if (failed(reading))
    return failure();
  const Reading &r = *reading;
  rt::ModelOp m = r.model;
  rt::BatchOp b = r.batch;
  const size_t world = r.ranks.size();

  // The plan's name: the caller's, else the spec file the model came from.
  std::string source = options.source;
  if (source.empty())
    if (auto loc = dyn_cast<FileLineColLoc>(m.getLoc()))
      source = llvm::sys::path::filename(loc.getFilename().getValue()).str();
  os << "// Generated by Plexus (plx-translate --emit-cpp";
  if (!source.empty())
    os << ", from " << source;
  os << "). Do not edit: regenerate it from the spec.\n"
     << "//\n"
     << "// One program for all " << world
     << " ranks. main() learns this process's rank from\n"
     << "// the launcher and runs that rank's function below (ranks whose "
        "rt.programs\n"
     << "// differ at most in their peers share one; spec.programs maps "
        "each rank to\n"
     << "// its): each call is one op of the rank's rt.program, in order, "
        "into the\n"
     << "// runtime's step executor (runtime/Executor.h); a run of ops that "
        "repeats\n"
     << "// (a layer, a micro-batch, a chunk) is a loop over a table whose "
        "rows hold\n"
     << "// what changes between repetitions (c[i]; modelled times are in "
        "rt.mlir).\n"
     << "// P[k] is the rank's k-th peer (kPeers). Works are written "
        "{{sequences},\n"
     << "// {slice of each}} or kWorks[i]; layer ranges {begin, end}; a "
        "forward's\n"
     << "// last argument is the layers it checkpoints (recomputed before "
        "its\n"
     << "// backward).\n"
     << "#include \"runtime/Program.h\"\n\n"
     << "namespace {\n\n"
     << "using namespace plexus::runtime;\n\n";

  os << "// rt.model\n"
     << "ModelConfig model() {\n"
     << "  ModelConfig c;\n"
     << "  c.layers = " << m.getLayers() << ";\n"
     << "  c.hidden = " << m.getHidden() << ";\n"
     << "  c.heads = " << m.getHeads() << ";\n"
     << "  c.kvHeads = " << m.getKvHeads() << ";\n"
     << "  c.headDim = " << m.getHeadDim() << ";\n"
     << "  c.ffn = " << m.getFfn() << ";\n"
     << "  c.vocab = " << m.getVocab() << ";\n"
     << "  c.mlp = MlpKind::" << (m.getMlp() == "gelu" ? "GeLU" : "SwiGLU")
     << ";\n"
     << "  c.tiedEmbeddings = " << (m.getTied() ? "true" : "false") << ";\n"
     << "  return c;\n"
     << "}\n\n";

  os << "// rt.batch: sequence lengths and the cut points of split sequences\n"
     << "StepBatch batch() {\n"
     << "  StepBatch b;\n"
     << "  b.seed = " << b.getSeed() << ";\n"
     << "  b.lengths = {" << intList(b.getLengths()) << "};\n";
  if (std::optional<ArrayRef<int64_t>> cuts = b.getCuts()) {
    std::map<int64_t, std::vector<int64_t>> bySeq;
    for (size_t i = 0; i + 1 < cuts->size(); i += 2)
      bySeq[(*cuts)[i]].push_back((*cuts)[i + 1]);
    os << "  b.cuts.resize(" << b.getLengths().size() << ");\n";
    for (auto &[seq, points] : bySeq)
      os << "  b.cuts[" << seq << "] = {" << intList(points) << "};\n";
  }
  os << "  return b;\n"
     << "}\n\n";

  os << "// Communicators: ranks in the ring order placement chose.\n";
  std::vector<const Communicator *> comms;
  for (auto &[name, comm] : r.comms)
    comms.push_back(&comm);
  for (const Communicator *c : comms)
    os << "const Group " << c->id << " = {" << intList(c->ranks) << "}; // "
       << c->name << "\n";
  os << "\n";

  // Peers of each rank's sends and receives (P[k] in its function), in the
  // order its program first names them.
  const bool anyPeers = llvm::any_of(
      r.ranks, [](const RankCode &code) { return !code.peers.empty(); });
  if (anyPeers) {
    os << "// Each rank's peers: P[k] in its function is the k-th.\n"
       << "const std::vector<int64_t> kPeers[] = {\n";
    for (const RankCode &code : r.ranks)
      os << "    {" << intList(code.peers) << "}, // rank " << code.rank
         << "\n";
    os << "};\n\n";
  }

  // One function per distinct program; spec.programs maps each rank to its.
  // The functions are printed first: their loops decide which works kWorks
  // holds.
  std::string functions;
  llvm::raw_string_ostream fs(functions);
  std::map<int64_t, size_t> workIndex;
  std::vector<int64_t> usedWorks;
  BodyPrinter printer(r.works, workIndex, usedWorks);
  for (auto [k, body] : llvm::enumerate(r.bodies)) {
    fs << "// Rank" << (body.ranks.size() > 1 ? "s " : " ")
       << rankRanges(body.ranks);
    if (body.stage >= 0)
      fs << ": stage " << body.stage;
    fs << ", layers [" << body.layerBegin << ", " << body.layerEnd << ")";
    if (!body.zeroGroup.empty())
      fs << ", ZeRO-3 over " << body.zeroGroup;
    fs << ".\n"
       << "Status program" << k << "(StepExecutor &x) {\n";
    if (body.usesPeers)
      fs << "  const std::vector<int64_t> &P = kPeers[x.rank()];\n";
    printer.print(body.lines, fs);
    fs << "  return Status::success();\n"
       << "}\n\n";
  }
  if (!usedWorks.empty()) {
    os << "// The works loops run: kWorks[i] is {{sequences}, {slice of "
          "each}}.\n"
       << "const Work kWorks[] = {\n";
    for (auto [i, work] : llvm::enumerate(usedWorks))
      os << "    " << r.works[work] << ", // " << i << "\n";
    os << "};\n\n";
  }
  os << functions;
  os << "} // namespace\n\n"
     << "int main(int argc, char **argv) {\n"
     << "  ProgramSpec spec;\n"
     << "  spec.name = \"" << (source.empty() ? "plexus" : "");
  for (char c : source)
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (static_cast<unsigned char>(c) >= 0x20)
      os << c;
  os << "\";\n"
     << "  spec.model = model();\n"
     << "  spec.batch = batch();\n"
     << "  spec.weightSeed = " << m.getSeed() << ";\n"
     << "  spec.planElementBytes = " << m.getElementBytes() << ";\n"
     << "  spec.ranks = {\n";
  for (const RankCode &code : r.ranks)
    os << "      {{" << code.layerBegin << ", " << code.layerEnd << "}, "
       << (code.zeroGroup.empty() ? "{}" : code.zeroGroup) << "},\n";
  os << "  };\n"
     << "  spec.programs = {";
  for (size_t i = 0; i < world; ++i)
    os << (i ? ", " : "") << (i && i % 8 == 0 ? "\n                   " : "")
       << "program" << r.ranks[i].body;
  os << "};\n"
     << "  return runProgram(argc, argv, spec);\n"
     << "}\n";
  return success();
}

LogicalResult emitLaunchScript(ModuleOp module, llvm::raw_ostream &os,
                               const LaunchOptions &options) {
  int64_t world = 0;
  for (auto program : module.getOps<rt::ProgramOp>())
    world = std::max(world, program.getRank() + 1);
  if (world == 0)
    return module.emitError("emit-launch: the module has no rt.program");
  os << "#!/bin/sh\n"
     << "# Generated by Plexus. Builds program.cpp (beside this script) "
        "against the\n"
     << "# Plexus runtime when it is missing or older than its source, then "
        "runs it\n"
     << "# on " << world
     << " ranks. Arguments go to the program: --check "
        "compares the\n"
     << "# step with a single-rank run, --steps N runs N steps, --profile "
        "times them.\n"
     << "# On a Slurm cluster, run instead:\n"
     << "#   srun --ntasks=" << world << " --mpi=pmix ./program \"$@\"\n"
     << "set -eu\n"
     << "here=$(cd \"$(dirname \"$0\")\" && pwd)\n"
     << "src=${PLEXUS_SRC:-" << options.sourceDir << "}\n"
     << "build=${PLEXUS_BUILD:-" << options.buildDir << "}\n"
     << "if [ ! -x \"$here/program\" ] || [ \"$here/program.cpp\" -nt "
        "\"$here/program\" ]; then\n"
     << "  ${MPICXX:-mpicxx} -O2 -std=c++17 -DOMPI_SKIP_MPICXX "
        "-I\"$src\" \\\n"
     << "    \"$here/program.cpp\" -o \"$here/program\" \\\n"
     << "    \"$build/lib/libplxrt-program.a\" \"$build/lib/libplxrt-mpi.a\" "
        "\"$build/lib/libplxrt.a\" -lpthread\n"
     << "fi\n"
     << "# Open MPI starts more ranks than cores only when told, and as root "
        "only\n"
     << "# when told.\n"
     << "flags=\"" << options.mpirunFlags << "\"\n"
     << "if ${MPIRUN:-" << options.mpirun
     << "} --version 2>/dev/null | grep -q 'Open MPI'; then\n"
     << "  flags=\"$flags --oversubscribe\"\n"
     << "  if [ \"$(id -u)\" = 0 ]; then flags=\"$flags --allow-run-as-root\"; "
        "fi\n"
     << "fi\n"
     << "exec ${MPIRUN:-" << options.mpirun << "} -np " << world
     << " $flags \"$here/program\" \"$@\"\n";
  return success();
}

LogicalResult emitProgramsJson(ModuleOp module, llvm::raw_ostream &os) {
  using nlohmann::ordered_json;
  ordered_json root;
  for (auto m : module.getOps<rt::ModelOp>())
    root["model"] = {
        {"layers", m.getLayers()},    {"hidden", m.getHidden()},
        {"heads", m.getHeads()},      {"kv_heads", m.getKvHeads()},
        {"head_dim", m.getHeadDim()}, {"ffn", m.getFfn()},
        {"mlp", m.getMlp().str()},    {"vocab", m.getVocab()},
        {"tied", m.getTied()},        {"element_bytes", m.getElementBytes()},
        {"seed", m.getSeed()}};
  for (auto b : module.getOps<rt::BatchOp>()) {
    ordered_json batch = {
        {"seed", b.getSeed()},
        {"lengths",
         std::vector<int64_t>(b.getLengths().begin(), b.getLengths().end())}};
    if (std::optional<ArrayRef<int64_t>> cuts = b.getCuts())
      batch["cuts"] = std::vector<int64_t>(cuts->begin(), cuts->end());
    root["batch"] = batch;
  }
  auto programs = llvm::to_vector(module.getOps<rt::ProgramOp>());
  if (programs.empty())
    return module.emitError("emit-json: the module has no rt.program");
  llvm::sort(programs, [](rt::ProgramOp a, rt::ProgramOp b) {
    return a.getRank() < b.getRank();
  });
  // Every communicator's members once, by name (the module's rt.group
  // ops): ops name theirs ("comm", a compute op's "ulysses").
  std::string communicators;
  for (auto group : module.getOps<rt::GroupOp>())
    communicators +=
        std::string(communicators.empty() ? "" : ",\n") + "  " +
        ordered_json(group.getSymName().str()).dump() + ": " +
        ordered_json(std::vector<int64_t>(group.getRanks().begin(),
                                          group.getRanks().end()))
            .dump();
  // Ranks whose programs are equal (ops and resident bytes) are one entry
  // with their ranks: the file grows with the distinct programs.
  struct Entry {
    std::vector<int64_t> ranks;
    std::optional<int64_t> resident;
    const std::string *ops;
  };
  std::vector<Entry> entries;
  std::map<std::string, size_t> entryOf;
  for (rt::ProgramOp program : programs) {
    std::string ops;
    for (Operation &op : *program.getBody()) {
      ordered_json j = {{"op", op.getName().stripDialect().str()}};
      for (NamedAttribute attr : op.getAttrs()) {
        Attribute a = attr.getValue();
        std::string key = attr.getName().str();
        if (auto i = dyn_cast<IntegerAttr>(a))
          j[key] = i.getValue().getSExtValue();
        else if (auto f = dyn_cast<FloatAttr>(a))
          j[key] = f.getValueAsDouble();
        else if (auto s = dyn_cast<StringAttr>(a))
          j[key] = s.str();
        else if (auto ref = dyn_cast<FlatSymbolRefAttr>(a))
          j[key] = ref.getValue().str();
        else if (auto arr = dyn_cast<DenseI64ArrayAttr>(a))
          j[key] = std::vector<int64_t>(arr.asArrayRef().begin(),
                                        arr.asArrayRef().end());
        else if (isa<UnitAttr>(a))
          j[key] = true;
        else if (auto k = dyn_cast<rt::ComputeKindAttr>(a))
          j[key] = rt::stringifyComputeKind(k.getValue()).str();
        else if (auto k = dyn_cast<rt::CommKindAttr>(a))
          j[key] = rt::stringifyCommKind(k.getValue()).str();
      }
      ops += std::string(ops.empty() ? "" : ",\n") + "    " + j.dump();
    }
    std::optional<int64_t> resident = program.getResident();
    std::string key =
        (resident ? std::to_string(*resident) : std::string("-")) + "\n" +
        ops;
    auto [it, fresh] = entryOf.try_emplace(std::move(key), entries.size());
    if (fresh)
      entries.push_back({{}, resident, nullptr});
    entries[it->second].ranks.push_back(program.getRank());
    entries[it->second].ops = &it->first;
  }
  // One op per line, one communicator per line; the rest as objects.
  os << "{\n";
  for (auto &[key, value] : root.items())
    os << " " << ordered_json(key).dump() << ": " << value.dump() << ",\n";
  os << " \"communicators\": {\n" << communicators << "\n },\n"
     << " \"programs\": [\n";
  for (auto [i, entry] : llvm::enumerate(entries)) {
    os << "  {\"ranks\": " << ordered_json(entry.ranks).dump();
    if (entry.resident)
      os << ", \"resident\": " << *entry.resident;
    const std::string &ops = *entry.ops;
    os << ", \"ops\": [\n"
       << StringRef(ops).drop_front(ops.find('\n') + 1) << "\n  ]}"
       << (i + 1 < entries.size() ? "," : "") << "\n";
  }
  os << " ]\n}\n";
  return success();
}

/// The CUDA compute capability NCCL's topology files give as `sm`, by
/// catalog chip; 0 when the chip is not a GPU NCCL knows.
static int64_t smVersion(llvm::StringRef chip) {
  if (chip.starts_with("A100") || chip.starts_with("A800"))
    return 80;
  if (chip.starts_with("H100") || chip.starts_with("H800") ||
      chip.starts_with("H200") || chip.starts_with("GH200"))
    return 90;
  if (chip.starts_with("B200") || chip.starts_with("GB200"))
    return 100;
  return 0;
}

LogicalResult emitNcclTopology(ModuleOp module, llvm::raw_ostream &os) {
  auto jobs = llvm::to_vector(module.getOps<plan::JobOp>());
  if (jobs.empty())
    return module.emitError("emit-nccl-topo: the module has no plan.job "
                            "(run plx-instantiate and plx-place)");
  plan::JobOp job = jobs.front();
  if (!job.getChips())
    return job.emitOpError("emit-nccl-topo: has no placement; run plx-place");
  auto fabric = dyn_cast_or_null<plx::FabricOp>(
      SymbolTable::lookupSymbolIn(module, job.getFabricAttr()));
  if (!fabric)
    return job.emitOpError("emit-nccl-topo: names no plx.fabric");
  // The nodes the job uses and how many of each node's chips: NCCL reads one
  // node's system from NCCL_TOPO_FILE on every node, so the file describes
  // the largest node once (bus ids unique within it).
  std::map<int64_t, std::pair<int64_t, int64_t>> nodeRanks; // first, count
  int64_t perNode = 0;
  for (int64_t rank = 0; rank < job.getRanks(); ++rank) {
    auto [node, local] = job.chipOf(rank);
    auto [it, added] = nodeRanks.try_emplace(node, rank, 0);
    ++it->second.second;
    perNode = std::max(perNode, local + 1);
  }
  // NVLink 4 moves 25 GB/s per direction per link: the intra-node
  // bandwidth as a link count (at least one).
  const double intra = static_cast<double>(fabric.getIntraNodeBandwidth());
  const int64_t links =
      std::max<int64_t>(1, static_cast<int64_t>(intra / 25e9 + 0.5));
  // Each chip's own port into the network at the fabric's link speed
  // (Mb/s, NCCL's unit): one NIC per GPU, NIC r on rail r.
  double link = 0;
  int64_t rails = 0;
  llvm::TypeSwitch<Attribute>(fabric.getTopology())
      .Case([&](plx::RailXAttr a) {
        link = a.getLinkBandwidth().value;
        rails = a.getRails();
      })
      .Case([&](plx::FatTreeAttr a) { link = a.getLinkBandwidth().value; })
      .Case([&](plx::RailOptimizedAttr a) {
        link = a.getLinkBandwidth().value;
        rails = a.getRails();
      })
      .Case([&](plx::TorusAttr a) { link = a.getLinkBandwidth().value; });
  const int64_t speedMbps = static_cast<int64_t>(link * 8 / 1e6 + 0.5);
  const llvm::StringRef chip = fabric.getChip().getName();
  const int64_t sm = smVersion(chip);
  os << "<!-- Generated by Plexus for job " << job.getSymName() << " on "
     << fabric.getSymName() << ": one node of the " << nodeRanks.size()
     << " the job uses, each with up to " << perNode << " " << chip
     << " (every node reads this file through NCCL_TOPO_FILE); NVLink as "
     << links << " links of 25 GB/s; one NIC per GPU at " << speedMbps / 1000
     << " Gb/s"
     << (rails > 0 ? ", NIC r on rail r of " + std::to_string(rails)
                   : std::string())
     << (sm == 0 ? "; the chip is not a GPU NCCL knows: no sm is given"
                 : std::string())
     << ". -->\n";
  // Where placement put the ranks, for the first nodes.
  int64_t listed = 0;
  for (auto &[node, ranks] : nodeRanks) {
    if (++listed > 16) {
      os << "<!-- and " << nodeRanks.size() - 16 << " more nodes -->\n";
      break;
    }
    os << "<!-- node " << node << ": " << ranks.second << " rank"
       << (ranks.second > 1 ? "s" : "") << " from rank " << ranks.first
       << " -->\n";
  }
  os << "<system version=\"1\">\n"
     << "  <cpu numaid=\"0\" affinity=\"ffffffff\" arch=\"x86_64\" "
        "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\">\n";
  for (int64_t local = 0; local < perNode; ++local) {
    char busid[32];
    std::snprintf(busid, sizeof busid, "0000:%02llx:00.0",
                  static_cast<unsigned long long>(0x10 + local));
    os << "    <pci busid=\"" << busid
       << "\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" "
          "link_width=\"16\">\n"
       << "      <gpu dev=\"" << local << "\"";
    if (sm > 0)
      os << " sm=\"" << sm << "\"";
    os << " gdr=\"1\">\n"
       << "        <nvlink target=\"0000:00:00.0\" count=\"" << links
       << "\" tclass=\"0x068000\"/>\n"
       << "      </gpu>\n"
       << "    </pci>\n";
  }
  os << "    <nic>\n";
  for (int64_t local = 0; local < perNode; ++local)
    os << "      <net name=\"plexus_rail" << local << "\" dev=\"" << local
       << "\" speed=\"" << speedMbps
       << "\" port=\"1\" gdr=\"1\" maxconn=\"131072\" latency=\"0\"/>\n";
  os << "    </nic>\n"
     << "  </cpu>\n"
     << "</system>\n";
  return success();
}

} // namespace plexus::codegen
