//===- SpMilp.h - FlexSP's bucketed SP-group MILP ---------------*- C++ -*-===//
//
// One micro-batch's choice of heterogeneous Ulysses SP groups (reference
// flexsp_dpp.md section 1.3, Eqs. 17-22), as a mixed-integer programme
// solved with CBC (COIN-OR, C API). Given length buckets (upper bound s_q,
// count b_q), N GPUs of `capacityPerGpu` tokens and candidate power-of-two
// degrees, pick how many groups of each degree to run (degrees summing to
// N) and how many sequences of each bucket each group runs, minimising the
// slowest group's time sum_q A_qp t1(s_q, d_p) + beta1. Also the greedy
// plans that warm-start the solver. Plain C++, deterministic, errors as
// values.
//
// The model. Every degree d gets a pool of interchangeable "virtual" groups
// p, each with a binary m_p (the group runs) and integers A_qp (sequences of
// bucket q it runs), plus the objective C:
//   min C
//   sum_q t_qp A_qp + beta1                 <= C              every p  (18)
//   sum_q s_q A_qp                          <= cap d_p m_p    every p  (19)
//   sum_p d_p m_p                            = N                       (20)
//   sum_q A_qp                              >= m_p            every p
//   A_qp                                    <= u_qp m_p       every q, p (21)
//   sum_p A_qp                               = b_q            every q  (22)
//   sum_p d_p sum_q t_qp A_qp + N beta1     <= N C            (work cut)
//   m_p >= m_p+1,  sum_q t_qp A_qp >= sum_q t_qp+1 A_qp+1   (same degree)
// where u_qp = min(b_q, floor(cap d_p / s_q)) and A_qp is absent when one
// sequence of bucket q does not fit a group of degree d_p (min SP).
//
// Choices where the reference is silent (or where we depart from its code):
//  - Eq. 21 is written per bucket (A_qp <= u_qp m_p) rather than as
//    sum_q A_qp <= K m_p: the same integer points, a tighter relaxation.
//  - Row (18) charges beta1 to every virtual group, selected or not; that
//    is valid because any plan's time is at least beta1, and tighter than
//    beta1 m_p.
//  - The work cut is implied by the per-group rows for integer m but not
//    by the relaxation; it lifts CBC's lower bound to the balanced-work
//    bound. C itself starts at a valid bound: beta1 plus the larger of the
//    longest bucket's fastest time and the balanced work over N GPUs.
//  - Symmetry breaking orders same-degree groups by selection and by time,
//    not only by selection (reference section 3).
//  - Pool sizes use only valid reductions: at most floor(N/d) groups of
//    degree d, at most as many as there are sequences that fit such a
//    group, and, below the smallest degree the longest bucket needs (d*),
//    at most floor((N - d*) / d). The reference code's pruning by
//    sp_max * cnt_max can cut off feasible plans, so we do not use it.
//  - The warm start is the best greedy plan over every multiset of
//    candidate degrees summing to N (homogeneous ones included); the greedy
//    gives each sequence, longest bucket first, to the group where it would
//    finish earliest among those with memory left. The reference code
//    warm-starts with balanced homogeneous plans only.
//  - Greedy plans are polished by a local search (improveBucketPlan) that
//    moves or swaps sequences out of the slowest group; the best few
//    multisets are polished and the best result is the warm start.
//  - Min-max leaves the groups off the critical path free. Among greedy
//    plans equally fast we keep the one with the least GPU time, which puts
//    short sequences on small (intra-node) groups; CBC's plan replaces the
//    start only when strictly faster.
//  - By default CBC searches "lean" (SpMilpOptions::leanSearch): with its
//    cuts, heuristics, preprocessing and strong branching on, its root
//    alone took 0.5-6 s per micro-batch of a Wikipedia batch on our
//    machine and, given 60 s, improved on the polished greedy start by at
//    most 0.2-1 %; lean, a node costs milliseconds.
//  - CBC runs single-threaded with fixed seeds and its log off. Node and
//    gap limits end the search deterministically; the time limit is a
//    safety net, and the result says when it was reached (only then can a
//    rerun differ). CBC's solver entry point is not thread-safe, so solves
//    are serialised process-wide.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_ADAPTIVESP_SPMILP_H
#define PLEXUS_PASSES_ADAPTIVESP_SPMILP_H

#include "passes/AdaptiveSP/Bucketing.h"
#include "passes/Cost/ProfiledCostModel.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace plexus::adaptivesp {

/// One micro-batch's bucketed MILP, with the cost model already applied.
struct SpMilpInstance {
  std::vector<int64_t> bucketTokens;       // s_q, ascending
  std::vector<int64_t> bucketCounts;       // b_q
  std::vector<int64_t> degrees;            // candidate degrees, ascending
  std::vector<std::vector<double>> timeMs; // [q][k]: t1(s_q, degrees[k])
  double groupMs = 0;                      // beta1, once per group
  int64_t gpus = 0;                        // N
  int64_t capacityPerGpu = 0;              // tokens
};

/// Builds the instance: t1 from cost::sequenceTime for every bucket and
/// degree. Errors: no bucket, no degree, a degree the bandwidth table does
/// not list, or non-positive sizes.
Result<SpMilpInstance> makeSpMilpInstance(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const Bucketing &buckets, const std::vector<int64_t> &degrees, int64_t gpus,
    int64_t capacityPerGpu);

/// One SP group of a bucket-level plan: its degree and how many sequences
/// of each bucket it runs (counts[q], aligned with bucketTokens).
struct BucketGroup {
  int64_t degree = 0;
  std::vector<int64_t> counts;
};

/// Max over groups of sum_q counts[q] * t1(s_q, degree) + beta1: the
/// MILP's objective for a plan (0 for no groups).
double bucketPlanTimeMs(const SpMilpInstance &inst,
                        const std::vector<BucketGroup> &groups);

/// Whether `groups` is a plan of the instance: degrees are candidates and
/// sum to N, every bucket is covered exactly, every group is non-empty and
/// holds at most cap * degree tokens. Empty string when it is; else why not.
std::string bucketPlanViolation(const SpMilpInstance &inst,
                                const std::vector<BucketGroup> &groups);

/// The greedy plan for a fixed list of group degrees: buckets longest
/// first, each sequence to the group where it would finish earliest (ties:
/// the earliest group in `groupDegrees`) among those with memory left.
/// nullopt when a sequence fits no group or a group stays empty.
std::optional<std::vector<BucketGroup>>
greedyBucketPlan(const SpMilpInstance &inst,
                 const std::vector<int64_t> &groupDegrees);

/// Local search on a plan: while some move of one sequence out of the
/// slowest group, or swap of one of its sequences with another group's,
/// leaves both groups faster than the slowest was (memory permitting), make
/// the best such change. Never makes the plan slower; at most `maxSteps`
/// changes.
void improveBucketPlan(const SpMilpInstance &inst,
                       std::vector<BucketGroup> &groups,
                       int64_t maxSteps = 10000);

/// The balanced homogeneous plan: N / degree groups of `degree`, filled by
/// greedyBucketPlan. nullopt when infeasible or degree does not divide N.
std::optional<std::vector<BucketGroup>>
balancedHomogeneousPlan(const SpMilpInstance &inst, int64_t degree);

/// The best greedyBucketPlan over every multiset of candidate degrees that
/// sums to N, the best few polished by improveBucketPlan. Plans compare by
/// their slowest group, then by GPU time (sum of degree * group time), then
/// by a fixed enumeration order. When there are more than
/// `maxConfigurations` multisets only the homogeneous ones are tried.
/// nullopt when none is feasible.
std::optional<std::vector<BucketGroup>>
bestGreedyPlan(const SpMilpInstance &inst, int64_t maxConfigurations = 20000);

/// How hard CBC searches.
struct SpMilpOptions {
  /// Wall-clock limit per MILP; 0 = none. Reaching it makes the result
  /// depend on the machine (SpMilpResult::timeLimitReached says so).
  double timeLimitSeconds = 10;
  /// Branch-and-bound nodes per MILP; 0 = no limit. Deterministic.
  int64_t nodeLimit = 50;
  /// Stop once (incumbent - bound) / incumbent <= this. Deterministic.
  double relativeGap = 0.002;
  /// Hand CBC the best greedy plan as its first incumbent.
  bool warmStart = true;
  /// Switch off CBC's cut generators, primal heuristics, preprocessing and
  /// strong branching. On this model they cost seconds per solve and, in
  /// our runs, did not improve on the polished greedy start within a few
  /// seconds; off, a node costs milliseconds. Set false to run CBC as
  /// configured by default (the slow reference solves).
  bool leanSearch = true;
};

/// What a solve returned.
struct SpMilpResult {
  std::vector<BucketGroup> groups; // by descending degree, then time
  double objectiveMs = 0;          // bucketPlanTimeMs(groups)
  double lowerBoundMs = 0;         // the best bound CBC proved
  bool provenOptimal = false;      // within CBC's tolerances
  bool timeLimitReached = false;
  bool fromWarmStart = false; // CBC found nothing better than the greedy
  int64_t nodes = 0;
  int64_t columns = 0, rows = 0;
};

/// Solves the MILP. The incumbent CBC starts from is `warmStart` when given
/// (and a valid plan), else bestGreedyPlan when options.warmStart is set.
/// The result is never worse than that start. Errors: an instance no plan
/// can satisfy, or no plan found within the limits.
Result<SpMilpResult>
solveSpMilp(const SpMilpInstance &inst, const SpMilpOptions &options = {},
            const std::vector<BucketGroup> *warmStart = nullptr);

} // namespace plexus::adaptivesp

#endif // PLEXUS_PASSES_ADAPTIVESP_SPMILP_H
