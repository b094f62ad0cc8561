//===- IterationBound.h - A lower bound on FlexSP's iteration ---*- C++ -*-===//
//
// A provably valid lower bound on the modelled iteration time of any plan of
// a global batch on N GPUs under FlexSP's profiled cost model
// (passes/Cost/ProfiledCostModel.h) with a given set of candidate SP
// degrees: micro-batches run one after another, each takes its slowest
// group, a group takes beta1 plus the sum of t1(s, d) of its sequences, the
// degrees of a micro-batch's groups sum to at most N and a group of degree d
// holds at most capacity * d tokens. The planner's result is judged against
// it (bench/flexsp prints the gap). Plain C++, deterministic, errors as
// values.
//
// The bound. Let a plan have M micro-batches with times T_m = beta1 + tau_m
// and total T = M beta1 + sum_m tau_m. Then
//  (1) M >= M_lb: a micro-batch holds at most K = N * capacity tokens, so
//      M >= ceil(total tokens / K), and no two sequences over K / 2 share
//      one, so with B of them M >= B + ceil(max(0, tokens of the others -
//      the B micro-batches' room) / K);
//  (2) every tau_m <= tau := T - M beta1 (the tau_m are non-negative), so
//      every sequence s runs at a degree d_s with t1(s, d_s) <= tau;
//  (3) the GPUs of micro-batch m are busy at most N tau_m in total and its
//      groups use d_g (T_g - beta1) >= sum_{s in g} d_g t1(s, d_g), so
//      N tau = N sum_m tau_m >= sum_s d_s t1(s, d_s) >= sum_s w_tau(s),
//      with w_tau(s) = min { d t1(s, d) : d fits s, t1(s, d) <= tau }.
// f(tau) = N tau - sum_s w_tau(s) is increasing in tau (w_tau does not
// grow), so every plan has tau >= tau*, the least tau with f(tau) >= 0, and
// T >= M_lb beta1 + tau*. tau* is at least the longest sequence's fastest
// time and at least the balanced work sum_s min_d d t1(s, d) / N; it is
// found exactly by a search over the breakpoints t1(s, d).
//
// (4) Memory. Take any sequence s and the micro-batch A that holds it, at
// degree d. With w(s') = min_d' d' t1(s', d') (the least GPU time of s'),
// tau_A >= t1(s, d) =: t, N tau_A >= d t + W_A where W_A sums w over A's
// other sequences, and the other micro-batches need sum tau_m >= (W' -
// W_A) / N with W' = sum over all but s of w. A holds at most N capacity
// tokens, so W_A <= F, the most work that N capacity - |s| tokens of the
// other sequences can carry (a fractional knapsack, densest w/|s'| first).
// So tau >= g(tau_A) with g(x) = x + max(0, W' - min(N x - d t, F)) / N,
// non-decreasing, hence tau >= g(t) = max(t, (W' + d t) / N, t + (W' - F)
// / N) for the plan's d, and so tau >= min_d g. Each s gives a valid
// bound; we take the largest over the 8 longest. The bound is
// M_lb beta1 + max(tau*, that).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_ADAPTIVESP_ITERATIONBOUND_H
#define PLEXUS_PASSES_ADAPTIVESP_ITERATIONBOUND_H

#include "passes/AdaptiveSP/SequenceBlaster.h"
#include "passes/Cost/ProfiledCostModel.h"

#include <cstdint>
#include <vector>

namespace plexus::adaptivesp {

/// The bound and its parts.
struct IterationBound {
  double boundMs = 0; // minMicroBatches * beta1 + max(workMs, holdingMs)
  int64_t minMicroBatches = 0;  // M_lb, (1)
  double workMs = 0;            // tau*
  double balancedWorkMs = 0;    // sum_s min_d d t1(s, d) / N (tau* >= it)
  double longestSequenceMs = 0; // max_s min_d t1(s, d) (tau* >= it)
  double holdingMs = 0;         // the memory-aware term (4)
};

/// The bound of the file comment for `lengths` on `gpus` GPUs of
/// `capacityPerGpu` tokens with the candidate `degrees` (each at most
/// `gpus`). 0 for an empty batch. Errors: non-positive sizes or lengths, no
/// degree, a degree the bandwidth table does not list, or a sequence that
/// no candidate degree holds.
Result<IterationBound> iterationLowerBound(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const std::vector<int64_t> &lengths, const std::vector<int64_t> &degrees,
    int64_t gpus, int64_t capacityPerGpu);

} // namespace plexus::adaptivesp

#endif // PLEXUS_PASSES_ADAPTIVESP_ITERATIONBOUND_H
