//===- SliceOrder.cpp - The order of a split sequence's slices ------------===//
#include "passes/Simulate/SliceOrder.h"

#include <map>
#include <string>
#include <tuple>

namespace plexus::sim {

namespace {

/// One sequence over one layer range.
struct Key {
  int64_t seq, begin, end;
  bool operator<(const Key &o) const {
    return std::tie(seq, begin, end) < std::tie(o.seq, o.begin, o.end);
  }
};

/// The latest slice of a key an op of one kind ran, and that op.
struct Seen {
  int64_t slice;
  size_t op;
};

std::string sliceOf(int64_t slice, const Key &k) {
  return "slice " + std::to_string(slice) + " of sequence " +
         std::to_string(k.seq);
}

std::string layersOf(const Key &k) {
  return "(layers [" + std::to_string(k.begin) + ", " + std::to_string(k.end) +
         "))";
}

/// Checks that `slice` comes strictly after (increasing) or before
/// (decreasing) the last slice `seen` of `key`, then records it.
std::optional<SliceOrderViolation> checkStep(std::map<Key, Seen> &seen,
                                             const Key &key, int64_t slice,
                                             size_t op, bool increasing,
                                             const char *pass, const char *rule,
                                             const char *ranHere) {
  auto [it, first] = seen.try_emplace(key, Seen{slice, op});
  if (first)
    return std::nullopt;
  Seen last = it->second;
  if (increasing ? slice > last.slice : slice < last.slice) {
    it->second = {slice, op};
    return std::nullopt;
  }
  SliceOrderViolation v;
  v.op = op;
  v.other = last.op;
  v.message =
      std::string("runs the ") + pass + " of " + sliceOf(slice, key) + " " +
      layersOf(key) +
      (slice == last.slice ? std::string(" a second time")
                           : " after slice " + std::to_string(last.slice)) +
      "; " + rule;
  v.note = sliceOf(last.slice, key) + " " + ranHere + " here";
  return v;
}

} // namespace

std::optional<SliceOrderViolation> checkSliceOrder(const Program &program) {
  auto sliced = [](const Op &op) {
    return op.kind == OpKind::Compute && !op.slices.empty() &&
           op.slices.size() == op.seqs.size();
  };
  // Where each slice of each key first goes forward, and the first forward
  // of each key at all.
  std::map<Key, std::map<int64_t, size_t>> forwardAt;
  std::map<Key, size_t> firstForward;
  for (size_t i = 0; i < program.ops.size(); ++i) {
    const Op &op = program.ops[i];
    if (!sliced(op) || op.computeKind != ComputeKind::Fwd)
      continue;
    for (size_t j = 0; j < op.seqs.size(); ++j) {
      Key key{op.seqs[j], op.layerBegin, op.layerEnd};
      forwardAt[key].try_emplace(op.slices[j], i);
      firstForward.try_emplace(key, i);
    }
  }

  std::map<Key, Seen> forward, backward, recompute;
  for (size_t i = 0; i < program.ops.size(); ++i) {
    const Op &op = program.ops[i];
    if (!sliced(op))
      continue;
    for (size_t j = 0; j < op.seqs.size(); ++j) {
      Key key{op.seqs[j], op.layerBegin, op.layerEnd};
      const int64_t slice = op.slices[j];
      std::optional<SliceOrderViolation> v;
      switch (op.computeKind) {
      case ComputeKind::Fwd:
        v = checkStep(forward, key, slice, i, /*increasing=*/true, "forward",
                      "a sequence's slices go forward in order",
                      "went forward");
        break;
      case ComputeKind::Recompute:
        v = checkStep(recompute, key, slice, i, /*increasing=*/false,
                      "recompute",
                      "a sequence's slices are recomputed in reverse order",
                      "was recomputed");
        break;
      case ComputeKind::Bwd:
        v = checkStep(backward, key, slice, i, /*increasing=*/false, "backward",
                      "a sequence's slices go backward in reverse order",
                      "went backward");
        if (v || !firstForward.count(key))
          break;
        // This rank runs the key forward: the slice's forward comes first.
        auto &slices = forwardAt[key];
        auto at = slices.find(slice);
        if (at != slices.end() && at->second < i)
          break;
        v = SliceOrderViolation();
        v->op = i;
        if (at != slices.end()) {
          v->other = at->second;
          v->message = "runs the backward of " + sliceOf(slice, key) + " " +
                       layersOf(key) +
                       " before its forward; a slice goes backward after its "
                       "forward";
          v->note = "the forward of " + sliceOf(slice, key) + " runs here";
        } else {
          v->other = firstForward[key];
          v->message = "runs the backward of " + sliceOf(slice, key) + " " +
                       layersOf(key) +
                       " but never its forward, though it runs other slices "
                       "of the sequence forward; a slice goes backward after "
                       "its forward";
          v->note = "the first forward of sequence " + std::to_string(key.seq) +
                    " " + layersOf(key) + " on this rank";
        }
        break;
      }
      if (v)
        return v;
    }
  }
  return std::nullopt;
}

} // namespace plexus::sim
