//===- Bucketing.h - Length buckets for FlexSP's MILP -----------*- C++ -*-===//
//
// FlexSP solves its SP-group MILP over buckets of similar lengths instead of
// single sequences (reference flexsp_dpp.md sections 1.3 and 1.5, Eqs.
// 15-16): every sequence of a bucket is modelled at the bucket's upper
// bound, and the buckets are chosen by a dynamic programme that minimises
// the padding this adds. The count Q starts at 16 and grows until the
// padded micro-batch is no more than halfway from its real token count to
// the cluster's capacity. Plain C++, deterministic, errors as values.
//
// Choices where the reference is silent:
//  - The DP runs over distinct lengths (with their multiplicities), so Q is
//    capped at the number of distinct lengths; at that cap the buckets are
//    exact. This replaces the reference's "per-sequence MILP when Q >= K"
//    fallback with the same optimum and fewer variables.
//  - Among equally good cuts the DP keeps the one found first (smallest
//    split point); members of a bucket are listed by descending length,
//    ties by ascending id.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_ADAPTIVESP_BUCKETING_H
#define PLEXUS_PASSES_ADAPTIVESP_BUCKETING_H

#include "passes/AdaptiveSP/SequenceBlaster.h"

#include <cstdint>
#include <vector>

namespace plexus::adaptivesp {

/// Sequences modelled at one length: the longest among them.
struct SequenceBucket {
  int64_t upperTokens = 0;
  std::vector<int64_t> sequenceIds; // descending length, ties by id
};

/// A micro-batch's buckets, by ascending upper bound.
struct Bucketing {
  std::vector<SequenceBucket> buckets;
  int64_t tokens = 0;       // real tokens of the micro-batch
  int64_t paddedTokens = 0; // sum over buckets of upper bound * members
};

/// Padding as a share of the real tokens: paddedTokens / tokens - 1 (the
/// reference's "token error ratio", Tab. 4); 0 for an empty bucketing.
double bucketTokenError(const Bucketing &b);

/// Optimal bucketing of the sequences `ids` (indices into `lengths`) into
/// min(buckets, distinct lengths) buckets, minimising the padding. Errors:
/// buckets < 1, an id out of range or a non-positive length.
Result<Bucketing> bucketSequences(const std::vector<int64_t> &lengths,
                                  const std::vector<int64_t> &ids,
                                  int64_t buckets);

/// bucketSequences with the reference's growth rule: Q starts at
/// `initialBuckets` and grows by one until
/// 2 * paddedTokens <= tokens + clusterTokens (always met once buckets are
/// exact, since a blasted micro-batch fits the cluster). With `grow` false,
/// Q stays at `initialBuckets`.
Result<Bucketing> bucketMicroBatch(const std::vector<int64_t> &lengths,
                                   const std::vector<int64_t> &ids,
                                   int64_t initialBuckets,
                                   int64_t clusterTokens, bool grow = true);

/// The naive alternative the reference compares against: fixed-width
/// bins ((k-1)w, kw], each modelled at its longest member (the tightest
/// valid bound; the reference does not say which bound it used).
Result<Bucketing> bucketFixedWidth(const std::vector<int64_t> &lengths,
                                   const std::vector<int64_t> &ids,
                                   int64_t width);

} // namespace plexus::adaptivesp

#endif // PLEXUS_PASSES_ADAPTIVESP_BUCKETING_H
