//===- Executor.cpp - One rank's per-rank program, op by op ---------------===//
//
// The state is a StepExecutor::State: the batch's tokens and cut points,
// the stage's parameters and gradient accumulators, the reduced gradients
// of the step's collectives, one WorkState per work in flight and one
// KvEntry per (cut sequence, layer). Every op checks its preconditions
// against that state before it computes or communicates anything, so a
// failing op leaves no half-done collective behind on this rank.
//
//===----------------------------------------------------------------------===//
#include "runtime/Executor.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <utility>

namespace plexus::runtime {

namespace {

using Clock = std::chrono::steady_clock;

/// This thread's CPU seconds so far (0 where the clock is missing).
double threadCpuSeconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Wall and CPU seconds of a kind of call.
struct Seconds {
  double wall = 0, cpu = 0;
};

/// Adds the wall and thread-CPU seconds of its lifetime to `total`.
/// Both reads of the CPU clock lie inside the wall interval: reading it
/// updates the scheduler's account of this thread and may switch it out on
/// an oversubscribed core, and a switch outside the interval would put the
/// other ranks' turns in none of the timed phases.
class Timer {
public:
  explicit Timer(Seconds &total)
      : total(total), start(Clock::now()), cpuStart(threadCpuSeconds()) {}
  ~Timer() {
    total.cpu += threadCpuSeconds() - cpuStart;
    total.wall += std::chrono::duration<double>(Clock::now() - start).count();
  }
  Timer(const Timer &) = delete;
  Timer &operator=(const Timer &) = delete;

private:
  Seconds &total;
  Clock::time_point start;
  double cpuStart;
};

/// The rank's comm with a stopwatch: the Ulysses all-to-alls run inside the
/// layers, and this is how their time leaves the compute figure for the
/// communication one.
class TimedComm : public Comm {
public:
  TimedComm(Comm &inner, Seconds &total) : inner(inner), total(total) {}
  int rank() const override { return inner.rank(); }
  int size() const override { return inner.size(); }

protected:
  Status doAllToAll(const Group &group, int, const void *in, void *out,
                    int64_t count, DType dtype) override {
    Timer t(total);
    return inner.allToAll(group, in, out, count, dtype);
  }
  Status doAllReduce(const Group &group, int, void *data, int64_t count,
                     DType dtype) override {
    Timer t(total);
    return inner.allReduce(group, data, count, dtype);
  }
  Status doAllGather(const Group &group, int, const void *in, void *out,
                     int64_t count, DType dtype) override {
    Timer t(total);
    return inner.allGather(group, in, out, count, dtype);
  }
  Status doReduceScatter(const Group &group, int, const void *in, void *out,
                         int64_t count, DType dtype) override {
    Timer t(total);
    return inner.reduceScatter(group, in, out, count, dtype);
  }
  Status doSend(int peer, const void *data, int64_t count, DType dtype,
                int tag) override {
    Timer t(total);
    return inner.send(peer, data, count, dtype, tag);
  }
  Status doRecv(int peer, void *data, int64_t count, DType dtype,
                int tag) override {
    Timer t(total);
    return inner.recv(peer, data, count, dtype, tag);
  }

private:
  Comm &inner;
  Seconds &total;
};

std::string listString(const std::vector<int64_t> &v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

std::string num(int64_t v) { return std::to_string(v); }

/// A work's identity: its (sequence, slice) pairs in order.
using WorkKey = std::vector<std::pair<int64_t, int64_t>>;

std::string keyString(const WorkKey &key) {
  std::vector<int64_t> seqs, slices;
  for (const auto &p : key) {
    seqs.push_back(p.first);
    slices.push_back(p.second);
  }
  return "seqs " + listString(seqs) + " slices " + listString(slices);
}

/// A work resolved against the batch and a Ulysses group: its slices and
/// this rank's rows of them.
struct Resolved {
  WorkKey key;
  std::vector<Slice> slices;
  std::vector<int64_t> sliceCount;      ///< slices of each work sequence
  std::vector<int32_t> tokens, targets; ///< this rank's rows
  Group ulysses;                        ///< empty: none (or one rank)
  int index = 0;
  int64_t degree = 1;
  int64_t localTokens = 0;
  int64_t kvHeadBegin = 0, kvHeads = 0; ///< the core layout's K/V heads
};

/// A boundary tensor of a work: the hidden state at a forward boundary or
/// the gradient at a backward boundary.
struct Slot {
  int64_t at = -1; ///< the boundary; -1: empty
  bool received = false;
  /// Received, at whichever of the rank's boundaries its next pass starts
  /// from: a rank of an interleaved pipeline holds several model chunks,
  /// and a message names no layer.
  bool open = false;
  Tensor t;
  void reset() {
    at = -1;
    received = false;
    open = false;
    t.clear();
  }
};

struct WorkState {
  Group ulysses;
  bool hasLayout = false; ///< a compute op fixed the group
  int64_t localTokens = -1;
  std::map<int64_t, LayerActivations<float>> acts; ///< by global layer
  bool hasHead = false;
  HeadActivations<float> head;
  Slot fwd, bwd;
  bool empty() const {
    return acts.empty() && !hasHead && fwd.at < 0 && bwd.at < 0;
  }
};

/// The K/V of a cut sequence at one layer on this rank, rows in token
/// order, and the gradients later slices handed back to them.
struct KvEntry {
  int64_t headBegin = 0, heads = 0, rowSize = 0;
  std::vector<float> k, v, gk, gv;
  std::set<int64_t> forwarded, backwarded; ///< slice indices
  bool retired = false; ///< every forwarded slice ran its backward
  int64_t rows() const {
    return rowSize ? static_cast<int64_t>(k.size()) / rowSize : 0;
  }
};

/// A ZeRO-3 chunk: a layer range gathered as one, with this rank's shard.
struct Chunk {
  LayerRange range;
  int64_t n = 0, shard = 0;
  Tensor param, grad; ///< [shard]: at rest; the step's reduced gradient
  bool reduced = false;
  Adam<float> adam;
};

/// A data-parallel reduce-scatter of a range (ZeRO-1/2).
struct DpShard {
  LayerRange range;
  Group group;
  int index = 0;
  int64_t n = 0, shard = 0;
  Tensor grad; ///< [shard]
  bool applied = false;
};

/// A data-parallel all-reduce of a range (ZeRO-0).
struct DpSum {
  LayerRange range;
  Group group;
  Tensor grad; ///< [n]
};

bool overlaps(LayerRange a, LayerRange b) {
  return a.begin < b.end && b.begin < a.end;
}
bool same(LayerRange a, LayerRange b) {
  return a.begin == b.begin && a.end == b.end;
}

/// f(tensor) over a layer's tensors in LayerWeights::forEach order. The
/// MLP kind comes from the config, not from which tensors are empty, so
/// that released (ZeRO-3) parameters still pair with their gradients.
template <typename L, typename F>
void forLayer(L &w, const ModelConfig &c, F &&f) {
  f(w.attnNorm);
  f(w.wq);
  f(w.wk);
  f(w.wv);
  f(w.wo);
  f(w.mlpNorm);
  if (c.mlp == MlpKind::SwiGLU)
    f(w.wGate);
  f(w.wUp);
  f(w.wDown);
}

/// f(tensor) over the packed tensors of layers r in w: the embedding when
/// r.begin == 0, the layers, the final norm and the untied head when r.end
/// is the model's last layer.
template <typename W, typename F>
void forRange(W &w, const ModelConfig &c, LayerRange r, F &&f) {
  if (r.begin == 0 && w.part.embedding)
    f(w.embedding);
  for (int64_t l = r.begin; l < r.end; ++l)
    forLayer(w.layer(l), c, f);
  if (r.end == c.layers && w.part.head) {
    f(w.finalNorm);
    if (!c.tiedEmbeddings)
      f(w.head);
  }
}

/// The range's tensors packed into `out`, zero-padded to `padded`.
void pack(const ModelWeights<float> &w, const ModelConfig &c, LayerRange r,
          int64_t padded, std::vector<float> &out) {
  out.assign(static_cast<size_t>(padded), 0.0f);
  size_t off = 0;
  forRange(w, c, r, [&](const Tensor &t) {
    std::memcpy(out.data() + off, t.data(),
                sizeof(float) * static_cast<size_t>(t.numel()));
    off += static_cast<size_t>(t.numel());
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// Free helpers
//===----------------------------------------------------------------------===//

std::string workString(const Work &work) {
  std::vector<int64_t> slices = work.slices;
  if (slices.empty())
    slices.assign(work.seqs.size(), 0);
  return "seqs " + listString(work.seqs) + " slices " + listString(slices);
}

std::string rangeString(LayerRange layers) {
  return "[" + num(layers.begin) + ", " + num(layers.end) + ")";
}

int64_t layerParameterCount(const ModelConfig &c) {
  const int64_t h = c.hidden, d = c.headWidth(), hq = c.heads,
                hk = c.kvHeadCount(), f = c.ffn;
  return 2 * h + h * hq * d + 2 * h * hk * d + hq * d * h +
         (c.mlp == MlpKind::SwiGLU ? 3 : 2) * h * f;
}

int64_t packedParameterCount(const ModelConfig &c, LayerRange layers) {
  int64_t n = (layers.end - layers.begin) * layerParameterCount(c);
  if (layers.begin == 0)
    n += c.vocab * c.hidden;
  if (layers.end == c.layers)
    n += c.hidden + (c.tiedEmbeddings ? 0 : c.hidden * c.vocab);
  return n;
}

int64_t wholeParameterCount(const ModelConfig &c) {
  return packedParameterCount(c, {0, c.layers});
}

int64_t shardSize(int64_t n, int64_t g) { return g > 0 ? (n + g - 1) / g : 0; }

std::vector<std::vector<int32_t>> batchSequences(const StepBatch &batch,
                                                 int64_t vocab) {
  std::vector<std::vector<int32_t>> out;
  for (size_t s = 0; s < batch.lengths.size(); ++s)
    out.push_back(syntheticTokens(batch.seed, static_cast<int64_t>(s),
                                  batch.lengths[s], vocab));
  return out;
}

Result<ReferenceCheck> compareWithReference(const ModelConfig &config,
                                            const ModelWeights<float> &weights,
                                            const StepBatch &batch, double loss,
                                            const std::vector<float> &whole) {
  const int64_t count = parameterCount(weights);
  if (static_cast<int64_t>(whole.size()) != count)
    return Status::error("reference check: the gradient has " +
                         num(whole.size()) + " elements, the model " +
                         num(count));
  ModelWeights<float> refGrads = zerosLike(weights);
  Result<double> ref = referenceStep(
      config, weights, batchSequences(batch, config.vocab), refGrads);
  if (!ref.ok())
    return ref.status().withContext("reference check");
  ReferenceCheck out;
  out.loss = loss;
  out.referenceLoss = *ref;
  out.lossError = std::fabs(loss - *ref) / std::max(std::fabs(*ref), 1e-30);
  // Unpack `whole` into a ModelWeights of the same structure.
  ModelWeights<float> got = zerosLike(weights);
  size_t off = 0;
  got.forEach([&](const std::string &, Tensor &t) {
    std::memcpy(t.data(), whole.data() + off,
                sizeof(float) * static_cast<size_t>(t.numel()));
    off += static_cast<size_t>(t.numel());
  });
  std::vector<const Tensor *> want;
  refGrads.forEach(
      [&](const std::string &, const Tensor &t) { want.push_back(&t); });
  size_t i = 0;
  out.worstError = -1;
  got.forEach([&](const std::string &name, const Tensor &t) {
    const double e = normRelativeError(t, *want[i++]);
    if (e > out.worstError || std::isnan(e)) {
      out.worstError = e;
      out.worstTensor = name;
    }
  });
  return out;
}

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

struct StepExecutor::State {
  Comm &comm;
  ModelConfig config;
  StepBatch batch;
  ExecutorOptions options;
  std::vector<std::vector<int32_t>> tokens; ///< per sequence id
  std::vector<std::vector<int64_t>> bounds; ///< per sequence: c_0 .. c_K
  double lossScale = 0;

  ModelWeights<float> params, grads;
  int64_t perLayer = 0;
  std::vector<bool> gathered; ///< per stage layer: full parameters present
  std::vector<bool> dirty;    ///< per stage layer: gradient since its last sync

  bool zero3 = false;
  int zeroIndex = 0;
  std::vector<Chunk> chunks;
  std::vector<DpShard> dpShards;
  std::vector<DpSum> dpSums;
  /// Adam of data-parallel ranges: (0 shard / 1 sum / 2 local, range).
  std::map<std::pair<int, std::pair<int64_t, int64_t>>, Adam<float>> adams;

  std::map<WorkKey, WorkState> works;
  std::map<std::pair<int64_t, int64_t>, KvEntry> kv; ///< (sequence, layer)

  double loss = 0;
  bool finished = false;
  int64_t stepCount = 0;
  int64_t stage = -1;
  Seconds computeTime, commTime;
  Seconds ulyssesTime; ///< inside computeTime
  TimedComm ulyssesComm{comm, ulyssesTime};

  explicit State(Comm &comm) : comm(comm) {}

  int rank() const { return comm.rank(); }
  std::string onRank() const { return " on rank " + num(rank()); }

  /// The start of a recompute or backward: the stage and layers are this
  /// rank's, the work resolves, exists, and every layer of the range has
  /// run its forward for it. `checkpointed` receives the layers whose
  /// activations are incomplete (waiting for their recompute), in order.
  Status openForwardedWork(const std::string &where, int64_t stage,
                           LayerRange layers, const Work &work,
                           const Group *ulysses, Resolved &r, WorkState *&ws,
                           std::vector<int64_t> &checkpointed) {
    PLXRT_TRY(checkCompute(stage, layers).withContext(where));
    PLXRT_TRY(resolve(work, ulysses, r).withContext(where));
    PLXRT_TRY(workFor(r, false, ws).withContext(where));
    checkpointed.clear();
    for (int64_t l = layers.begin; l < layers.end; ++l) {
      auto it = ws->acts.find(l);
      if (it == ws->acts.end())
        return Status::error(where + ": layer " + num(l) +
                             " has not run its forward for this work");
      if (!it->second.complete)
        checkpointed.push_back(l);
    }
    return Status::success();
  }

  std::string computeWhere(const char *op, LayerRange layers,
                           const Work &work) const {
    return std::string(op) + " of layers " + rangeString(layers) + " of " +
           workString(work) + onRank();
  }
  std::string collectiveWhere(const char *op, const Group &group,
                              LayerRange layers) const {
    return std::string(op) + " of layers " + rangeString(layers) + " over " +
           groupString(group) + onRank();
  }

  size_t block(int64_t layer) const {
    return static_cast<size_t>(layer - options.layers.begin);
  }

  /// Offset of the packed range r in the whole model's vector.
  int64_t wholeOffset(LayerRange r) const {
    return r.begin == 0 ? 0 : config.vocab * config.hidden + r.begin * perLayer;
  }

  /// The pieces a plan may round separately when it counts the bytes of
  /// range r: each layer, the embedding, the final norm with the head.
  int64_t pieces(LayerRange r) const {
    return (r.end - r.begin) + (r.begin == 0 ? 1 : 0) +
           (r.end == config.layers ? 1 : 0);
  }

  Status checkRange(LayerRange r) const {
    if (r.begin >= r.end || r.begin < options.layers.begin ||
        r.end > options.layers.end)
      return Status::error("layers " + rangeString(r) +
                           " are not a non-empty range of this rank's "
                           "layers " +
                           rangeString(options.layers));
    return Status::success();
  }

  Status checkCompute(int64_t stageArg, LayerRange r) {
    PLXRT_TRY(checkRange(r));
    if (stageArg < 0)
      return Status::error("stage " + num(stageArg) + " is negative");
    if (stage >= 0 && stage != stageArg)
      return Status::error("stage " + num(stageArg) +
                           ", but this rank ran stage " + num(stage) +
                           " before (a rank keeps its stage)");
    stage = stageArg;
    return Status::success();
  }

  Status checkBytes(int64_t bytes, int64_t elements, int64_t tolerance,
                    const std::string &what) const {
    const int64_t want = elements * options.planElementBytes;
    const int64_t diff = bytes > want ? bytes - want : want - bytes;
    if (diff < tolerance || (tolerance == 0 && diff == 0))
      return Status::success();
    return Status::error(num(bytes) + " bytes, but " + what + " is " +
                         num(elements) + " elements = " + num(want) +
                         " bytes at " + num(options.planElementBytes) +
                         " bytes per element");
  }

  /// The work's (sequence, slice) pairs, checked against the batch.
  Status resolveKey(const Work &work, WorkKey &key) const {
    if (work.seqs.empty())
      return Status::error("the work has no sequence");
    if (!work.slices.empty() && work.slices.size() != work.seqs.size())
      return Status::error("the work has " + num(work.slices.size()) +
                           " slice indices for " + num(work.seqs.size()) +
                           " sequences");
    key.clear();
    std::set<int64_t> seen;
    for (size_t i = 0; i < work.seqs.size(); ++i) {
      const int64_t seq = work.seqs[i];
      const int64_t slice = work.slices.empty() ? 0 : work.slices[i];
      if (seq < 0 || seq >= static_cast<int64_t>(bounds.size()))
        return Status::error("sequence " + num(seq) +
                             " is not in the batch of " + num(bounds.size()) +
                             " sequences");
      const int64_t count =
          static_cast<int64_t>(bounds[static_cast<size_t>(seq)].size()) - 1;
      if (slice < 0 || slice >= count)
        return Status::error("sequence " + num(seq) + " has " + num(count) +
                             " slice" + (count == 1 ? "" : "s") +
                             ", so no slice " + num(slice));
      if (!seen.insert(seq).second)
        return Status::error("sequence " + num(seq) +
                             " appears twice in the work");
      key.push_back({seq, slice});
    }
    return Status::success();
  }

  int64_t sliceBegin(int64_t seq, int64_t slice) const {
    return bounds[static_cast<size_t>(seq)][static_cast<size_t>(slice)];
  }
  int64_t sliceEnd(int64_t seq, int64_t slice) const {
    return bounds[static_cast<size_t>(seq)][static_cast<size_t>(slice + 1)];
  }
  int64_t slicesOf(int64_t seq) const {
    return static_cast<int64_t>(bounds[static_cast<size_t>(seq)].size()) - 1;
  }

  int64_t workTokens(const WorkKey &key) const {
    int64_t t = 0;
    for (const auto &p : key)
      t += sliceEnd(p.first, p.second) - sliceBegin(p.first, p.second);
    return t;
  }

  Status resolve(const Work &work, const Group *ulysses, Resolved &r) const {
    PLXRT_TRY(resolveKey(work, r.key));
    r.slices.clear();
    r.sliceCount.clear();
    std::vector<int32_t> allTokens, allTargets;
    for (const auto &[seq, slice] : r.key) {
      const int64_t b = sliceBegin(seq, slice), e = sliceEnd(seq, slice);
      r.slices.push_back({e - b, b});
      r.sliceCount.push_back(slicesOf(seq));
      const auto &ids = tokens[static_cast<size_t>(seq)];
      allTokens.insert(allTokens.end(), ids.begin() + b, ids.begin() + e);
      const auto t = nextTokenTargets(ids, b, e);
      allTargets.insert(allTargets.end(), t.begin(), t.end());
    }
    r.ulysses.clear();
    r.index = 0;
    r.degree = 1;
    if (ulysses) {
      const int index = comm.indexIn(*ulysses);
      if (index < 0)
        return Status::error("rank " + num(rank()) +
                             " is not in its Ulysses group " +
                             groupString(*ulysses));
      if (ulysses->size() > 1) {
        r.ulysses = *ulysses;
        r.index = index;
        r.degree = static_cast<int64_t>(ulysses->size());
      }
    }
    const int64_t hk = config.kvHeadCount();
    if (config.heads % r.degree || hk % r.degree)
      return Status::error("heads (" + num(config.heads) + ") and K/V heads (" +
                           num(hk) + ") must split over Ulysses degree " +
                           num(r.degree));
    for (size_t i = 0; i < r.slices.size(); ++i)
      if (r.slices[i].tokens % r.degree)
        return Status::error(
            "slice " + num(r.key[i].second) + " of sequence " +
            num(r.key[i].first) + " has " + num(r.slices[i].tokens) +
            " tokens, which do not split over Ulysses degree " + num(r.degree));
    r.tokens.clear();
    r.targets.clear();
    for (int64_t row : localRows(r.slices, r.degree, r.index)) {
      r.tokens.push_back(allTokens[static_cast<size_t>(row)]);
      r.targets.push_back(allTargets[static_cast<size_t>(row)]);
    }
    r.localTokens = static_cast<int64_t>(r.tokens.size());
    r.kvHeads = hk / r.degree;
    r.kvHeadBegin = r.index * r.kvHeads;
    return Status::success();
  }

  /// The work's state for a compute op: created by a forward, found
  /// otherwise; the Ulysses group must be the one it ran under.
  Status workFor(const Resolved &r, bool create, WorkState *&ws) {
    auto it = works.find(r.key);
    if (it == works.end()) {
      if (!create)
        return Status::error("the forward of this work has not run here");
      it = works.emplace(r.key, WorkState()).first;
    }
    ws = &it->second;
    if (ws->hasLayout && ws->ulysses != r.ulysses)
      return Status::error("the work ran under Ulysses group " +
                           groupString(ws->ulysses) + " before, not " +
                           groupString(r.ulysses));
    if (ws->localTokens >= 0 && ws->localTokens != r.localTokens)
      return Status::error("this rank holds " + num(r.localTokens) +
                           " tokens of the work, but its received tensors "
                           "have " +
                           num(ws->localTokens) + " rows");
    return Status::success();
  }

  void dropIfEmpty(const WorkKey &key) {
    auto it = works.find(key);
    if (it != works.end() && it->second.empty())
      works.erase(it);
  }

  /// Under ZeRO-3 the parameters of `layers` (and of the tied head's
  /// embedding, when `head`) must be gathered.
  Status requireGathered(const std::vector<int64_t> &layers, bool head) const {
    for (int64_t l : layers)
      if (!gathered[block(l)])
        return Status::error(
            "the parameters of layer " + num(l) +
            " are not gathered (ZeRO-3: gatherParams before the layer's "
            "first use and again after each reduce-scatter of its "
            "gradients)");
    if (head && config.tiedEmbeddings && !gathered[block(0)])
      return Status::error("the tied head needs the embedding, which is "
                           "gathered with layer 0, and it is not gathered");
    return Status::success();
  }

  void release(LayerRange r) {
    if (!zero3)
      return;
    for (int64_t l = r.begin; l < r.end; ++l) {
      forRange(params, config, {l, l + 1}, [](Tensor &t) { t.clear(); });
      gathered[block(l)] = false;
    }
  }

  //===--- K/V of cut sequences ---------------------------------------===//

  /// The forward (and recompute) preconditions of the K/V store at layer
  /// l: every slice with context finds its earlier tokens here, in the
  /// same head group; a forward (`appending`) does not repeat a slice.
  Status checkKv(const Resolved &r, int64_t l, bool appending) const {
    for (size_t i = 0; i < r.key.size(); ++i) {
      const auto [seq, slice] = r.key[i];
      if (r.sliceCount[i] == 1)
        continue;
      auto it = kv.find({seq, l});
      const std::string what = "the K/V of sequence " + num(seq) +
                               " at layer " + num(l) + " on this rank";
      if (it != kv.end()) {
        const KvEntry &e = it->second;
        if (e.retired)
          return Status::error(what + " was released: the backward of all "
                                      "its slices that ran forward has run");
        if (e.headBegin != r.kvHeadBegin || e.heads != r.kvHeads)
          return Status::error(
              what + " holds K/V heads [" + num(e.headBegin) + ", " +
              num(e.headBegin + e.heads) + "), but slice " + num(slice) +
              " needs heads [" + num(r.kvHeadBegin) + ", " +
              num(r.kvHeadBegin + r.kvHeads) +
              ") (the slices of a sequence must keep their Ulysses layout)");
        if (appending && e.forwarded.count(slice))
          return Status::error("slice " + num(slice) + " of sequence " +
                               num(seq) + " already ran its forward of layer " +
                               num(l) + " here");
      }
      const int64_t context = r.slices[i].context;
      const int64_t rows = it == kv.end() ? 0 : it->second.rows();
      if (context > rows)
        return Status::error(what + " holds " + num(rows) + " of the " +
                             num(context) + " context tokens of slice " +
                             num(slice) +
                             ": the forward of its earlier slices has not "
                             "run here");
    }
    return Status::success();
  }

  /// The context K/V of the work's slices at layer l, [sum context, heads,
  /// d]; false when no slice has context.
  bool context(const Resolved &r, int64_t l, KeyValues<float> &ctx) const {
    int64_t total = 0;
    for (const Slice &s : r.slices)
      total += s.context;
    if (total == 0)
      return false;
    const int64_t d = config.headWidth(), rowSize = r.kvHeads * d;
    ctx.k.resize({total, r.kvHeads, d});
    ctx.v.resize({total, r.kvHeads, d});
    int64_t at = 0;
    for (size_t i = 0; i < r.key.size(); ++i) {
      const int64_t c = r.slices[i].context;
      if (c == 0)
        continue;
      const KvEntry &e = kv.at({r.key[i].first, l});
      const size_t n = static_cast<size_t>(c * rowSize);
      std::memcpy(ctx.k.row(at), e.k.data(), sizeof(float) * n);
      std::memcpy(ctx.v.row(at), e.v.data(), sizeof(float) * n);
      at += c;
    }
    return true;
  }

  /// After the forward of layer l: each slice of a cut sequence records
  /// its forward, and all but the last append their own K/V rows.
  void appendKv(const Resolved &r, int64_t l,
                const LayerActivations<float> &acts) {
    const int64_t d = config.headWidth();
    int64_t row = 0;
    for (size_t i = 0; i < r.key.size(); ++i) {
      const auto [seq, slice] = r.key[i];
      const int64_t tokens = r.slices[i].tokens;
      if (r.sliceCount[i] > 1) {
        KvEntry &e = kv[{seq, l}];
        if (e.rowSize == 0) {
          e.headBegin = r.kvHeadBegin;
          e.heads = r.kvHeads;
          e.rowSize = r.kvHeads * d;
        }
        e.forwarded.insert(slice);
        if (slice + 1 < r.sliceCount[i]) {
          const size_t n = static_cast<size_t>(tokens * e.rowSize);
          e.k.insert(e.k.end(), acts.k.row(row), acts.k.row(row) + n);
          e.v.insert(e.v.end(), acts.v.row(row), acts.v.row(row) + n);
          e.gk.resize(e.k.size(), 0.0f);
          e.gv.resize(e.v.size(), 0.0f);
        }
      }
      row += tokens;
    }
  }

  /// The backward's K/V preconditions at layer l: later slices of the
  /// work's sequences that ran forward here have run their backward.
  Status checkKvBackward(const Resolved &r, int64_t l) const {
    for (size_t i = 0; i < r.key.size(); ++i) {
      const auto [seq, slice] = r.key[i];
      if (r.sliceCount[i] == 1)
        continue;
      auto it = kv.find({seq, l});
      if (it == kv.end())
        continue;
      for (int64_t later : it->second.forwarded)
        if (later > slice && !it->second.backwarded.count(later))
          return Status::error(
              "slice " + num(later) + " of sequence " + num(seq) +
              " attended to slice " + num(slice) + " at layer " + num(l) +
              " and has not run its backward here (a sequence's slices "
              "run backward in reverse)");
    }
    return Status::success();
  }

  /// The gradients of the work's own K/V rows from later slices; false
  /// when no slice has later slices.
  bool later(const Resolved &r, int64_t l, KeyValues<float> &out) const {
    bool any = false;
    for (size_t i = 0; i < r.key.size(); ++i)
      any = any || r.key[i].second + 1 < r.sliceCount[i];
    if (!any)
      return false;
    int64_t total = 0;
    for (const Slice &s : r.slices)
      total += s.tokens;
    const int64_t d = config.headWidth();
    out.k.resize({total, r.kvHeads, d});
    out.v.resize({total, r.kvHeads, d});
    int64_t row = 0;
    for (size_t i = 0; i < r.key.size(); ++i) {
      const auto [seq, slice] = r.key[i];
      const int64_t tokens = r.slices[i].tokens;
      auto it = kv.find({seq, l});
      if (slice + 1 < r.sliceCount[i] && it != kv.end()) {
        const KvEntry &e = it->second;
        const size_t from =
                         static_cast<size_t>(r.slices[i].context * e.rowSize),
                     n = static_cast<size_t>(tokens * e.rowSize);
        std::memcpy(out.k.row(row), e.gk.data() + from, sizeof(float) * n);
        std::memcpy(out.v.row(row), e.gv.data() + from, sizeof(float) * n);
      }
      row += tokens;
    }
    return true;
  }

  /// After the backward of layer l: the context gradients go to the
  /// earlier slices' rows; each slice records its backward, and an entry
  /// whose forwarded slices have all run backward is released.
  void finishKv(const Resolved &r, int64_t l, const KeyValues<float> *grad) {
    int64_t at = 0;
    for (size_t i = 0; i < r.key.size(); ++i) {
      const auto [seq, slice] = r.key[i];
      if (r.sliceCount[i] == 1)
        continue;
      KvEntry &e = kv[{seq, l}];
      const int64_t c = r.slices[i].context;
      if (c > 0 && grad) {
        const size_t n = static_cast<size_t>(c * e.rowSize);
        const float *gk = grad->k.row(at), *gv = grad->v.row(at);
        for (size_t j = 0; j < n; ++j) {
          e.gk[j] += gk[j];
          e.gv[j] += gv[j];
        }
      }
      at += c;
      e.backwarded.insert(slice);
      if (e.backwarded == e.forwarded) {
        e.retired = true;
        e.k = {};
        e.v = {};
        e.gk = {};
        e.gv = {};
      }
    }
  }

  //===--- Parameters and gradients -------------------------------------===//

  /// Copies n elements of `from` into the range's parameters, allocating
  /// them (ZeRO-3) with the accumulators' shapes.
  void unpackParams(LayerRange r, const float *from) {
    std::vector<Tensor *> p;
    std::vector<const Tensor *> g;
    forRange(params, config, r, [&](Tensor &t) { p.push_back(&t); });
    forRange(grads, config, r, [&](const Tensor &t) { g.push_back(&t); });
    size_t off = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      if (!p[i]->sameShape(*g[i]))
        p[i]->resize(g[i]->shape());
      std::memcpy(p[i]->data(), from + off,
                  sizeof(float) * static_cast<size_t>(p[i]->numel()));
      off += static_cast<size_t>(p[i]->numel());
    }
  }

  void zeroGrads(LayerRange r) {
    forRange(grads, config, r, [](Tensor &t) { t.fill(0.0f); });
    for (int64_t l = r.begin; l < r.end; ++l)
      dirty[block(l)] = false;
  }

  /// A data-parallel record for `r` over `group` must be new and disjoint
  /// from the others, or the same range and group as one of its kind.
  Status checkDpRecord(LayerRange r, const Group &group, bool shard) const {
    for (const DpShard &d : dpShards)
      if (overlaps(d.range, r) &&
          !(shard && same(d.range, r) && d.group == group))
        return Status::error("layers " + rangeString(r) +
                             " overlap the reduce-scatter of layers " +
                             rangeString(d.range) + " over " +
                             groupString(d.group) + " in this step");
    for (const DpSum &d : dpSums)
      if (overlaps(d.range, r) &&
          !(!shard && same(d.range, r) && d.group == group))
        return Status::error("layers " + rangeString(r) +
                             " overlap the all-reduce of layers " +
                             rangeString(d.range) + " over " +
                             groupString(d.group) + " in this step");
    return Status::success();
  }

  /// Stage layers no data-parallel collective reduced this step.
  std::vector<bool> reducedBlocks() const {
    std::vector<bool> covered(gathered.size(), false);
    auto mark = [&](LayerRange r) {
      for (int64_t l = r.begin; l < r.end; ++l)
        covered[block(l)] = true;
    };
    for (const Chunk &c : chunks)
      mark(c.range);
    for (const DpShard &d : dpShards)
      mark(d.range);
    for (const DpSum &d : dpSums)
      mark(d.range);
    return covered;
  }

  /// Maximal runs of stage layers no collective reduced (data parallel).
  std::vector<LayerRange> localRanges() const {
    std::vector<LayerRange> out;
    if (zero3)
      return out;
    const std::vector<bool> covered = reducedBlocks();
    for (int64_t l = options.layers.begin; l < options.layers.end; ++l) {
      if (covered[block(l)])
        continue;
      if (!out.empty() && out.back().end == l)
        out.back().end = l + 1;
      else
        out.push_back({l, l + 1});
    }
    return out;
  }

  /// Adam on the full parameters of r with a packed gradient.
  Status adamOnRange(int kind, LayerRange r, const float *grad) {
    const int64_t n = packedParameterCount(config, r);
    std::vector<float> flat;
    pack(params, config, r, n, flat);
    Tensor p({n}), g({n});
    std::memcpy(p.data(), flat.data(), sizeof(float) * static_cast<size_t>(n));
    std::memcpy(g.data(), grad, sizeof(float) * static_cast<size_t>(n));
    auto it = adams.find({kind, {r.begin, r.end}});
    if (it == adams.end())
      it = adams
               .emplace(std::make_pair(kind, std::make_pair(r.begin, r.end)),
                        Adam<float>(options.adam))
               .first;
    PLXRT_TRY(it->second.step({&p}, {&g}));
    unpackParams(r, p.data());
    return Status::success();
  }

  void reset() {
    grads.forEach([](const std::string &, Tensor &t) { t.fill(0.0f); });
    std::fill(dirty.begin(), dirty.end(), false);
    for (Chunk &c : chunks) {
      c.grad.fill(0.0f);
      c.reduced = false;
    }
    if (zero3)
      release(options.layers);
    dpShards.clear();
    dpSums.clear();
    works.clear();
    kv.clear();
    loss = 0;
    finished = false;
  }
};

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

StepExecutor::StepExecutor(std::unique_ptr<State> state)
    : s(std::move(state)) {}
StepExecutor::~StepExecutor() = default;

Result<std::unique_ptr<StepExecutor>>
StepExecutor::create(Comm &comm, const ModelConfig &config,
                     const StepBatch &batch, const ExecutorOptions &options) {
  const std::string where = "step executor on rank " + num(comm.rank());
  PLXRT_TRY(checkConfig(config).withContext(where));
  const LayerRange layers = options.layers;
  if (layers.begin < 0 || layers.begin >= layers.end ||
      layers.end > config.layers)
    return Status::error(where + ": layers " + rangeString(layers) +
                         " are not a non-empty range of the model's " +
                         num(config.layers));
  if (config.tiedEmbeddings &&
      (layers.begin != 0 || layers.end != config.layers))
    return Status::error(where +
                         ": tied embeddings need the embedding and "
                         "the head on one rank, but it holds layers " +
                         rangeString(layers) + " of " + num(config.layers));
  if (options.planElementBytes < 1)
    return Status::error(where + ": planElementBytes must be at least 1, got " +
                         num(options.planElementBytes));
  if (batch.lengths.empty())
    return Status::error(where + ": the batch has no sequence");
  if (batch.cuts.size() > batch.lengths.size())
    return Status::error(where + ": cuts for " + num(batch.cuts.size()) +
                         " sequences, but the batch has " +
                         num(batch.lengths.size()));

  auto state = std::make_unique<State>(comm);
  State &st = *state;
  st.config = config;
  st.batch = batch;
  st.options = options;
  for (size_t s = 0; s < batch.lengths.size(); ++s) {
    const int64_t len = batch.lengths[s];
    if (len < 1)
      return Status::error(where + ": sequence " + num(s) + " has length " +
                           num(len));
    std::vector<int64_t> b = {0};
    if (s < batch.cuts.size())
      for (int64_t c : batch.cuts[s]) {
        if (c <= b.back() || c >= len)
          return Status::error(where + ": the cuts of sequence " + num(s) +
                               " " + listString(batch.cuts[s]) +
                               " must be strictly increasing inside (0, " +
                               num(len) + ")");
        b.push_back(c);
      }
    b.push_back(len);
    st.bounds.push_back(std::move(b));
    st.tokens.push_back(syntheticTokens(batch.seed, static_cast<int64_t>(s),
                                        len, config.vocab));
  }
  const int64_t targets = targetCount(st.tokens);
  if (targets == 0)
    return Status::error(where + ": no token of the batch has a target");
  st.lossScale = 1.0 / static_cast<double>(targets);

  const StagePart part{layers.begin, layers.end, layers.begin == 0,
                       layers.end == config.layers};
  st.zero3 = !options.zeroGroup.empty();
  if (st.zero3) {
    st.zeroIndex = comm.indexIn(options.zeroGroup);
    if (st.zeroIndex < 0)
      return Status::error(where + ": not in its ZeRO-3 group " +
                           groupString(options.zeroGroup));
  }
  Result<ModelWeights<float>> w =
      initWeights<float>(config, part, options.weightSeed);
  if (!w.ok())
    return w.status().withContext(where);
  st.grads = zerosLike(*w);
  st.params = w.take();
  st.perLayer = layerParameterCount(config);
  const size_t blocks = static_cast<size_t>(layers.end - layers.begin);
  st.gathered.assign(blocks, !st.zero3);
  st.dirty.assign(blocks, false);
  if (st.zero3) // at rest: shards only, drawn per chunk at its first gather
    st.release(layers);
  return std::unique_ptr<StepExecutor>(new StepExecutor(std::move(state)));
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

Status StepExecutor::forward(int64_t stage, LayerRange layers, const Work &work,
                             const Group *ulysses, LayerRange checkpointed) {
  State &st = *s;
  Timer timer(st.computeTime);
  const std::string where = st.computeWhere("forward", layers, work);
  auto fail = [&](const std::string &m) {
    return Status::error(where + ": " + m);
  };
  PLXRT_TRY(st.checkCompute(stage, layers).withContext(where));
  if (checkpointed.begin > checkpointed.end)
    return fail("the checkpointed layers " + rangeString(checkpointed) +
                " are not a range");
  Resolved r;
  PLXRT_TRY(st.resolve(work, ulysses, r).withContext(where));
  const bool head = layers.end == st.config.layers;
  std::vector<int64_t> used;
  for (int64_t l = layers.begin; l < layers.end; ++l)
    used.push_back(l);
  PLXRT_TRY(st.requireGathered(used, head).withContext(where));
  WorkState *ws = nullptr;
  PLXRT_TRY(st.workFor(r, true, ws).withContext(where));
  for (int64_t l = layers.begin; l < layers.end; ++l)
    if (ws->acts.count(l))
      return fail("layer " + num(l) +
                  " already ran its forward for this work (no backward since)");
  if (head && ws->hasHead)
    return fail("the head already ran its forward for this work");
  if (ws->fwd.open && layers.begin > 0) { // the boundary this pass reads
    ws->fwd.at = layers.begin;
    ws->fwd.open = false;
  }
  if (layers.begin > 0 && ws->fwd.at != layers.begin)
    return fail(ws->fwd.at < 0
                    ? "no hidden state at boundary " + num(layers.begin) +
                          ": neither a forward of layers [.., " +
                          num(layers.begin) +
                          ") nor a recv of this work ran "
                          "here"
                    : "the work's hidden state is at boundary " +
                          num(ws->fwd.at) + ", not " + num(layers.begin));
  if (layers.begin == 0 && ws->fwd.at >= 0)
    return fail("the work holds an unused hidden state at boundary " +
                num(ws->fwd.at));
  for (int64_t l = layers.begin; l < layers.end; ++l)
    PLXRT_TRY(st.checkKv(r, l, true).withContext(where));

  Tensor x;
  if (layers.begin == 0) {
    PLXRT_TRY(embedForward(st.config, st.params, r.tokens, x)
                  .withContext(where + ": embedding"));
  } else {
    x = std::move(ws->fwd.t);
    ws->fwd.reset();
  }
  ws->ulysses = r.ulysses;
  ws->hasLayout = true;
  ws->localTokens = r.localTokens;
  UlyssesGroup sp{&st.ulyssesComm, r.ulysses};
  const UlyssesGroup *spp = r.ulysses.empty() ? nullptr : &sp;
  for (int64_t l = layers.begin; l < layers.end; ++l) {
    KeyValues<float> ctx;
    const bool hasCtx = st.context(r, l, ctx);
    const Checkpoint mode = l >= checkpointed.begin && l < checkpointed.end
                                ? Checkpoint::Full
                                : Checkpoint::None;
    LayerActivations<float> acts;
    Tensor y;
    PLXRT_TRY(layerForward(st.config, st.params.layer(l), r.slices, spp, x,
                           hasCtx ? &ctx : nullptr, mode, acts, y)
                  .withContext(where + ": layer " + num(l)));
    st.appendKv(r, l, acts);
    ws->acts[l] = std::move(acts);
    x = std::move(y);
  }
  if (head) {
    Result<double> loss =
        headForward(st.config, st.params, x, r.targets, st.lossScale, ws->head);
    if (!loss.ok())
      return loss.status().withContext(where);
    ws->hasHead = true;
    st.loss += *loss;
  } else {
    ws->fwd.at = layers.end;
    ws->fwd.t = std::move(x);
  }
  return Status::success();
}

Status StepExecutor::recompute(int64_t stage, LayerRange layers,
                               const Work &work, const Group *ulysses) {
  State &st = *s;
  Timer timer(st.computeTime);
  const std::string where = st.computeWhere("recompute", layers, work);
  auto fail = [&](const std::string &m) {
    return Status::error(where + ": " + m);
  };
  Resolved r;
  WorkState *ws = nullptr;
  std::vector<int64_t> todo;
  PLXRT_TRY(
      st.openForwardedWork(where, stage, layers, work, ulysses, r, ws, todo));
  if (todo.empty())
    return fail("none of the layers was checkpointed in the forward and is "
                "waiting for its recompute");
  PLXRT_TRY(st.requireGathered(todo, false).withContext(where));
  for (int64_t l : todo)
    PLXRT_TRY(st.checkKv(r, l, false).withContext(where));
  UlyssesGroup sp{&st.ulyssesComm, r.ulysses};
  const UlyssesGroup *spp = r.ulysses.empty() ? nullptr : &sp;
  for (int64_t l : todo) {
    KeyValues<float> ctx;
    const bool hasCtx = st.context(r, l, ctx);
    PLXRT_TRY(layerRecompute(st.config, st.params.layer(l), r.slices, spp,
                             hasCtx ? &ctx : nullptr, ws->acts[l])
                  .withContext(where + ": layer " + num(l)));
  }
  return Status::success();
}

Status StepExecutor::backward(int64_t stage, LayerRange layers,
                              const Work &work, const Group *ulysses) {
  State &st = *s;
  Timer timer(st.computeTime);
  const std::string where = st.computeWhere("backward", layers, work);
  auto fail = [&](const std::string &m) {
    return Status::error(where + ": " + m);
  };
  Resolved r;
  WorkState *ws = nullptr;
  std::vector<int64_t> pending;
  PLXRT_TRY(st.openForwardedWork(where, stage, layers, work, ulysses, r, ws,
                                 pending));
  if (!pending.empty())
    return fail("layer " + num(pending.front()) +
                " was checkpointed and has not been recomputed");
  std::vector<int64_t> used;
  for (int64_t l = layers.begin; l < layers.end; ++l)
    used.push_back(l);
  const bool head = layers.end == st.config.layers;
  PLXRT_TRY(st.requireGathered(used, head).withContext(where));
  if (head && !ws->hasHead)
    return fail("the head has not run its forward for this work");
  if (ws->bwd.open && !head) { // the boundary this pass reads
    ws->bwd.at = layers.end;
    ws->bwd.open = false;
  }
  if (!head && ws->bwd.at != layers.end)
    return fail(ws->bwd.at < 0
                    ? "no gradient at boundary " + num(layers.end) +
                          ": neither a backward of layers [" + num(layers.end) +
                          ", ..) nor a recv of this work ran here"
                    : "the work's gradient is at boundary " + num(ws->bwd.at) +
                          ", not " + num(layers.end));
  if (head && ws->bwd.at >= 0)
    return fail("the work holds an unused gradient at boundary " +
                num(ws->bwd.at));
  for (int64_t l = layers.begin; l < layers.end; ++l)
    PLXRT_TRY(st.checkKvBackward(r, l).withContext(where));

  Tensor dy;
  if (head) {
    PLXRT_TRY(headBackward(st.config, st.params, ws->head, dy, st.grads)
                  .withContext(where + ": head"));
    ws->hasHead = false;
    ws->head = HeadActivations<float>();
    if (st.config.tiedEmbeddings)
      st.dirty[st.block(0)] = true;
  } else {
    dy = std::move(ws->bwd.t);
    ws->bwd.reset();
  }
  UlyssesGroup sp{&st.ulyssesComm, r.ulysses};
  const UlyssesGroup *spp = r.ulysses.empty() ? nullptr : &sp;
  for (int64_t l = layers.end - 1; l >= layers.begin; --l) {
    KeyValues<float> ctx, laterGrad, ctxGrad;
    const bool hasCtx = st.context(r, l, ctx);
    const bool hasLater = st.later(r, l, laterGrad);
    Tensor dx;
    PLXRT_TRY(layerBackward(st.config, st.params.layer(l), r.slices, spp,
                            hasCtx ? &ctx : nullptr, ws->acts[l], dy,
                            hasLater ? &laterGrad : nullptr, dx,
                            st.grads.layer(l), hasCtx ? &ctxGrad : nullptr)
                  .withContext(where + ": layer " + num(l)));
    st.finishKv(r, l, hasCtx ? &ctxGrad : nullptr);
    ws->acts.erase(l);
    st.dirty[st.block(l)] = true;
    dy = std::move(dx);
  }
  if (layers.begin == 0) {
    PLXRT_TRY(embedBackward(st.config, r.tokens, dy, st.grads)
                  .withContext(where + ": embedding"));
  } else {
    ws->bwd.at = layers.begin;
    ws->bwd.t = std::move(dy);
  }
  st.dropIfEmpty(r.key);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

namespace {
const char *passName(Pass pass) {
  return pass == Pass::Forward ? "hidden state" : "gradient";
}
} // namespace

Status StepExecutor::send(int peer, int64_t bytes, int64_t tag, Pass pass,
                          const Work &work) {
  State &st = *s;
  Timer timer(st.commTime);
  const std::string where = std::string("send of the ") + passName(pass) +
                            " of " + workString(work) + st.onRank() + " to " +
                            num(peer) + " (tag " + num(tag) + ")";
  auto fail = [&](const std::string &m) {
    return Status::error(where + ": " + m);
  };
  WorkKey key;
  PLXRT_TRY(st.resolveKey(work, key).withContext(where));
  if (tag < 0 || tag > INT_MAX)
    return fail("the tag is outside [0, " + num(INT_MAX) + "]");
  auto it = st.works.find(key);
  Slot *slot = nullptr;
  if (it != st.works.end())
    slot = pass == Pass::Forward ? &it->second.fwd : &it->second.bwd;
  if (!slot || slot->at < 0)
    return fail(
        std::string("no ") + passName(pass) + " of this work to send: its " +
        (pass == Pass::Forward ? "forward" : "backward") + " has not run here");
  PLXRT_TRY(st.checkBytes(bytes, slot->t.numel(), 0,
                          "the " + std::string(passName(pass)) + " " +
                              shapeString(slot->t.shape()))
                .withContext(where));
  PLXRT_TRY(
      st.comm.send(peer, slot->t.data(), slot->t.numel(), static_cast<int>(tag))
          .withContext(where));
  slot->reset();
  st.dropIfEmpty(key);
  return Status::success();
}

Status StepExecutor::recv(int peer, int64_t bytes, int64_t tag, Pass pass,
                          const Work &work) {
  State &st = *s;
  Timer timer(st.commTime);
  const std::string where = std::string("recv of the ") + passName(pass) +
                            " of " + workString(work) + st.onRank() + " from " +
                            num(peer) + " (tag " + num(tag) + ")";
  auto fail = [&](const std::string &m) {
    return Status::error(where + ": " + m);
  };
  WorkKey key;
  PLXRT_TRY(st.resolveKey(work, key).withContext(where));
  if (tag < 0 || tag > INT_MAX)
    return fail("the tag is outside [0, " + num(INT_MAX) + "]");
  const int64_t e = st.options.planElementBytes, h = st.config.hidden;
  const int64_t total = st.workTokens(key);
  auto it = st.works.find(key);
  int64_t rows = it != st.works.end() ? it->second.localTokens : -1;
  if (rows < 0) {
    // Before any compute of the work: the rows follow from the size, and
    // must be the work's tokens over some Ulysses degree.
    if (bytes < 0 || bytes % (e * h) != 0 || bytes == 0 ||
        total % (bytes / (e * h)) != 0)
      return fail(num(bytes) + " bytes are not [local tokens, " + num(h) +
                  "] at " + num(e) + " bytes per element for a work of " +
                  num(total) + " tokens");
    rows = bytes / (e * h);
  } else {
    PLXRT_TRY(st.checkBytes(bytes, rows * h, 0,
                            "the " + std::string(passName(pass)) + " [" +
                                num(rows) + ", " + num(h) + "]")
                  .withContext(where));
  }
  if (pass == Pass::Backward &&
      (it == st.works.end() || it->second.acts.empty()))
    return fail("the forward of this work has not run here");
  if (it == st.works.end())
    it = st.works.emplace(key, WorkState()).first;
  WorkState &ws = it->second;
  Slot &slot = pass == Pass::Forward ? ws.fwd : ws.bwd;
  if (slot.at >= 0)
    return fail(std::string("the work already holds an unused ") +
                passName(pass) + " at boundary " + num(slot.at));
  Tensor t({rows, h});
  PLXRT_TRY(st.comm.recv(peer, t.data(), t.numel(), static_cast<int>(tag))
                .withContext(where));
  slot.at =
      pass == Pass::Forward ? st.options.layers.begin : st.options.layers.end;
  slot.received = true;
  slot.open = true;
  slot.t = std::move(t);
  ws.localTokens = rows;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Collectives over parameters and gradients
//===----------------------------------------------------------------------===//

Status StepExecutor::gatherParams(const Group &group, LayerRange layers,
                                  int64_t bytes) {
  State &st = *s;
  Timer timer(st.commTime);
  const std::string where = st.collectiveWhere("gather", group, layers);
  auto fail = [&](const std::string &m) {
    return Status::error(where + ": " + m);
  };
  if (!st.zero3)
    return fail("the rank holds full parameters (no ZeRO-3 group); "
                "data-parallel runs gather with updateAndGatherParams");
  if (group != st.options.zeroGroup)
    return fail("the ZeRO-3 group is " + groupString(st.options.zeroGroup));
  PLXRT_TRY(st.checkRange(layers).withContext(where));
  Chunk *chunk = nullptr;
  for (Chunk &c : st.chunks) {
    if (same(c.range, layers))
      chunk = &c;
    else if (overlaps(c.range, layers))
      return fail("the layers overlap the chunk " + rangeString(c.range) +
                  " gathered before (ZeRO-3 chunks keep their ranges)");
  }
  const int64_t g = static_cast<int64_t>(group.size());
  const int64_t n = packedParameterCount(st.config, layers),
                shard = shardSize(n, g);
  PLXRT_TRY(st.checkBytes(bytes, shard,
                          st.options.planElementBytes + st.pieces(layers),
                          "the shard of " + num(n) + " parameters over " +
                              num(g) + " ranks")
                .withContext(where));
  if (!chunk) {
    if (st.stepCount > 0)
      return fail("the range was not a chunk in the first step");
    // The chunk's initial weights, drawn again from their streams (any cut
    // of the model draws the whole model's values); this rank keeps its
    // shard.
    const StagePart part{layers.begin, layers.end, layers.begin == 0,
                         layers.end == st.config.layers};
    Result<ModelWeights<float>> w =
        initWeights<float>(st.config, part, st.options.weightSeed);
    if (!w.ok())
      return w.status().withContext(where);
    std::vector<float> flat;
    pack(*w, st.config, layers, g * shard, flat);
    Chunk c;
    c.range = layers;
    c.n = n;
    c.shard = shard;
    c.param.resize({shard});
    c.grad.resize({shard});
    std::memcpy(c.param.data(),
                flat.data() + static_cast<size_t>(st.zeroIndex * shard),
                sizeof(float) * static_cast<size_t>(shard));
    c.adam = Adam<float>(st.options.adam);
    st.chunks.push_back(std::move(c));
    chunk = &st.chunks.back();
  }
  std::vector<float> full(static_cast<size_t>(g * shard));
  PLXRT_TRY(st.comm.allGather(group, chunk->param.data(), full.data(), shard)
                .withContext(where));
  st.unpackParams(layers, full.data());
  for (int64_t l = layers.begin; l < layers.end; ++l)
    st.gathered[st.block(l)] = true;
  return Status::success();
}

Status StepExecutor::reduceScatterGrads(const Group &group, LayerRange layers,
                                        int64_t bytes) {
  State &st = *s;
  Timer timer(st.commTime);
  const std::string where =
      st.collectiveWhere("reduce-scatter of the gradients", group, layers);
  auto fail = [&](const std::string &m) {
    return Status::error(where + ": " + m);
  };
  PLXRT_TRY(st.checkRange(layers).withContext(where));
  const int index = st.comm.indexIn(group);
  if (index < 0)
    return fail("the rank is not in the group");
  const int64_t g = static_cast<int64_t>(group.size());
  const int64_t n = packedParameterCount(st.config, layers),
                shard = shardSize(n, g);
  Chunk *chunk = nullptr;
  DpShard *record = nullptr;
  if (st.zero3) {
    if (group != st.options.zeroGroup)
      return fail("the ZeRO-3 group is " + groupString(st.options.zeroGroup));
    for (Chunk &c : st.chunks)
      if (same(c.range, layers))
        chunk = &c;
    if (!chunk)
      return fail("the layers are not a gathered chunk (under ZeRO-3 a "
                  "reduce-scatter covers a chunk gatherParams gathered)");
  } else {
    PLXRT_TRY(st.checkDpRecord(layers, group, true).withContext(where));
    for (DpShard &d : st.dpShards)
      if (same(d.range, layers))
        record = &d;
    if (record && record->applied)
      return fail("the layers were already updated by updateAndGatherParams "
                  "in this step");
  }
  PLXRT_TRY(st.checkBytes(bytes, g * shard,
                          g * (st.options.planElementBytes + st.pieces(layers)),
                          num(g) + " shards of " + num(shard) + " for " +
                              num(n) + " gradients")
                .withContext(where));
  std::vector<float> in;
  pack(st.grads, st.config, layers, g * shard, in);
  Tensor out({shard});
  PLXRT_TRY(st.comm.reduceScatter(group, in.data(), out.data(), shard)
                .withContext(where));
  Tensor *acc = nullptr;
  if (chunk) {
    chunk->reduced = true;
    acc = &chunk->grad;
  } else {
    if (!record) {
      DpShard d;
      d.range = layers;
      d.group = group;
      d.index = index;
      d.n = n;
      d.shard = shard;
      d.grad.resize({shard});
      st.dpShards.push_back(std::move(d));
      record = &st.dpShards.back();
    }
    acc = &record->grad;
  }
  for (int64_t i = 0; i < shard; ++i)
    (*acc)[i] += out[i];
  st.zeroGrads(layers);
  // Under ZeRO-3 the chunk's full weights are held from its gather until
  // its gradients are reduced (per micro-batch, or once per step).
  if (chunk)
    st.release(layers);
  return Status::success();
}

Status StepExecutor::allReduceGrads(const Group &group, LayerRange layers,
                                    int64_t bytes) {
  State &st = *s;
  Timer timer(st.commTime);
  const std::string where =
      st.collectiveWhere("all-reduce of the gradients", group, layers);
  auto fail = [&](const std::string &m) {
    return Status::error(where + ": " + m);
  };
  if (st.zero3)
    return fail("under ZeRO-3 gradients are reduce-scattered per chunk");
  PLXRT_TRY(st.checkRange(layers).withContext(where));
  if (st.comm.indexIn(group) < 0)
    return fail("the rank is not in the group");
  PLXRT_TRY(st.checkDpRecord(layers, group, false).withContext(where));
  const int64_t g = static_cast<int64_t>(group.size());
  const int64_t n = packedParameterCount(st.config, layers),
                padded = g * shardSize(n, g), e = st.options.planElementBytes;
  if (bytes < n * e || bytes > padded * e)
    return fail(num(bytes) + " bytes, but the range holds " + num(n) +
                " gradients (" + num(padded) +
                " padded to the group) = " + num(n * e) + " to " +
                num(padded * e) + " bytes at " + num(e) + " bytes per element");
  std::vector<float> flat;
  pack(st.grads, st.config, layers, n, flat);
  PLXRT_TRY(st.comm.allReduce(group, flat.data(), n).withContext(where));
  DpSum *record = nullptr;
  for (DpSum &d : st.dpSums)
    if (same(d.range, layers))
      record = &d;
  if (!record) {
    DpSum d;
    d.range = layers;
    d.group = group;
    d.grad.resize({n});
    st.dpSums.push_back(std::move(d));
    record = &st.dpSums.back();
  }
  for (int64_t i = 0; i < n; ++i)
    record->grad[i] += flat[static_cast<size_t>(i)];
  st.zeroGrads(layers);
  return Status::success();
}

Status StepExecutor::updateAndGatherParams(const Group &group,
                                           LayerRange layers, int64_t bytes) {
  State &st = *s;
  Timer timer(st.commTime);
  const std::string where =
      st.collectiveWhere("update and gather", group, layers);
  auto fail = [&](const std::string &m) {
    return Status::error(where + ": " + m);
  };
  if (st.zero3)
    return fail("under ZeRO-3 the optimizer runs in optimizerStep and the "
                "parameters are gathered per chunk");
  PLXRT_TRY(st.checkRange(layers).withContext(where));
  DpShard *record = nullptr;
  for (DpShard &d : st.dpShards)
    if (same(d.range, layers) && d.group == group)
      record = &d;
  if (!record)
    return fail("no reduce-scatter of these layers over this group ran in "
                "this step");
  if (record->applied)
    return fail("the layers were already updated in this step");
  PLXRT_TRY(st.checkBytes(bytes, record->shard, st.options.planElementBytes,
                          "the shard of " + num(record->n) +
                              " parameters over " + num(group.size()) +
                              " ranks")
                .withContext(where));
  const int64_t g = static_cast<int64_t>(group.size()), shard = record->shard;
  std::vector<float> flat;
  pack(st.params, st.config, layers, g * shard, flat);
  Tensor p({shard});
  std::memcpy(p.data(),
              flat.data() + static_cast<size_t>(record->index * shard),
              sizeof(float) * static_cast<size_t>(shard));
  const auto key = std::make_pair(0, std::make_pair(layers.begin, layers.end));
  auto it = st.adams.find(key);
  if (it == st.adams.end())
    it = st.adams.emplace(key, Adam<float>(st.options.adam)).first;
  PLXRT_TRY(it->second.step({&p}, {&record->grad}).withContext(where));
  std::vector<float> full(static_cast<size_t>(g * shard));
  PLXRT_TRY(st.comm.allGather(group, p.data(), full.data(), shard)
                .withContext(where));
  if (std::memcmp(full.data() + static_cast<size_t>(record->index * shard),
                  p.data(), sizeof(float) * static_cast<size_t>(shard)) != 0)
    return fail("the gathered parameters differ from this rank's own shard");
  st.unpackParams(layers, full.data());
  record->applied = true;
  return Status::success();
}

Status StepExecutor::wait(int64_t pending) {
  if (pending < 0)
    return Status::error("wait" + s->onRank() + ": pending is " + num(pending) +
                         ", must be non-negative");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// The step
//===----------------------------------------------------------------------===//

Result<double> StepExecutor::finishStep() {
  State &st = *s;
  const std::string where = "end of step" + st.onRank();
  std::vector<std::string> left;
  for (const auto &[key, ws] : st.works) {
    const std::string w = keyString(key);
    if (!ws.acts.empty()) {
      std::vector<int64_t> layers;
      for (const auto &a : ws.acts)
        layers.push_back(a.first);
      left.push_back("the forward of layers " + listString(layers) + " of " +
                     w + " has no backward");
    } else if (ws.hasHead) {
      left.push_back("the head's forward of " + w + " has no backward");
    }
    if (ws.fwd.at >= 0)
      left.push_back(std::string(ws.fwd.received ? "the received" : "the") +
                     " hidden state of " + w + " at boundary " +
                     num(ws.fwd.at) + " was never used");
    if (ws.bwd.at >= 0)
      left.push_back(std::string(ws.bwd.received ? "the received" : "the") +
                     " gradient of " + w + " at boundary " + num(ws.bwd.at) +
                     " was never used");
  }
  for (const auto &[id, e] : st.kv) {
    if (e.retired)
      continue;
    std::vector<int64_t> missing;
    for (int64_t k : e.forwarded)
      if (!e.backwarded.count(k))
        missing.push_back(k);
    left.push_back("the K/V context gradients of sequence " + num(id.first) +
                   " at layer " + num(id.second) +
                   " were not consumed: slices " + listString(missing) +
                   " have no backward");
  }
  const std::vector<bool> covered = st.reducedBlocks();
  for (int64_t l = st.options.layers.begin; l < st.options.layers.end; ++l) {
    const size_t b = st.block(l);
    if (st.dirty[b] && (st.zero3 || covered[b]))
      left.push_back("the gradients of layer " + num(l) +
                     " accumulated after the last collective that reduced "
                     "them" +
                     (st.zero3 ? " (ZeRO-3: reduceScatterGrads after the "
                                 "backward)"
                               : ""));
  }
  for (const DpShard &d : st.dpShards)
    if (!d.applied)
      left.push_back("the reduce-scattered gradients of layers " +
                     rangeString(d.range) + " over " + groupString(d.group) +
                     " were never applied (updateAndGatherParams)");
  if (!left.empty()) {
    std::string m = where + ": ";
    for (size_t i = 0; i < left.size(); ++i)
      m += (i ? "; " : "") + left[i];
    return Status::error(m);
  }
  st.finished = true;
  return st.loss;
}

Status StepExecutor::optimizerStep() {
  State &st = *s;
  const std::string where = "optimizer step" + st.onRank();
  if (!st.finished)
    return Status::error(where + ": finishStep has not succeeded for this "
                                 "step");
  for (Chunk &c : st.chunks)
    PLXRT_TRY(c.adam.step({&c.param}, {&c.grad})
                  .withContext(where + ": chunk " + rangeString(c.range)));
  for (const DpSum &d : st.dpSums)
    PLXRT_TRY(st.adamOnRange(1, d.range, d.grad.data())
                  .withContext(where + ": layers " + rangeString(d.range)));
  for (LayerRange r : st.localRanges()) {
    std::vector<float> g;
    pack(st.grads, st.config, r, packedParameterCount(st.config, r), g);
    PLXRT_TRY(st.adamOnRange(2, r, g.data())
                  .withContext(where + ": layers " + rangeString(r)));
  }
  st.reset();
  ++st.stepCount;
  return Status::success();
}

Status StepExecutor::contributeGradients(std::vector<float> &whole) const {
  const State &st = *s;
  const int64_t total = wholeParameterCount(st.config);
  if (static_cast<int64_t>(whole.size()) != total)
    return Status::error("contribute gradients" + st.onRank() + ": " +
                         num(whole.size()) + " elements, but the model has " +
                         num(total));
  auto addShard = [&](LayerRange r, int64_t n, int64_t shard, int index,
                      const Tensor &grad) {
    const int64_t off = st.wholeOffset(r), first = index * shard;
    for (int64_t i = first; i < std::min(n, first + shard); ++i)
      whole[static_cast<size_t>(off + i)] += grad[i - first];
  };
  for (const Chunk &c : st.chunks)
    addShard(c.range, c.n, c.shard, st.zeroIndex, c.grad);
  for (const DpShard &d : st.dpShards)
    addShard(d.range, d.n, d.shard, d.index, d.grad);
  for (const DpSum &d : st.dpSums)
    if (d.group.front() == st.rank())
      addShard(d.range, d.grad.numel(), d.grad.numel(), 0, d.grad);
  for (LayerRange r : st.localRanges()) {
    std::vector<float> g;
    const int64_t n = packedParameterCount(st.config, r);
    pack(st.grads, st.config, r, n, g);
    const int64_t off = st.wholeOffset(r);
    for (int64_t i = 0; i < n; ++i)
      whole[static_cast<size_t>(off + i)] += g[static_cast<size_t>(i)];
  }
  return Status::success();
}

double StepExecutor::computeSeconds() const {
  return s->computeTime.wall - s->ulyssesTime.wall;
}
double StepExecutor::commSeconds() const {
  return s->commTime.wall + s->ulyssesTime.wall;
}
double StepExecutor::computeCpuSeconds() const {
  return s->computeTime.cpu - s->ulyssesTime.cpu;
}
double StepExecutor::commCpuSeconds() const {
  return s->commTime.cpu + s->ulyssesTime.cpu;
}
int StepExecutor::rank() const { return s->rank(); }
int64_t StepExecutor::steps() const { return s->stepCount; }

} // namespace plexus::runtime
