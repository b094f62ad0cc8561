//===- HamiltonianDecomposition.h - Ring covers of K_n ----------*- C++ -*-===//
//
// Splits the complete graphs a RailX row or column needs into edge-disjoint
// Hamiltonian cycles (one per optical rail), plus the validator every
// decomposition is checked against. Plain C++, no exceptions: failures come
// back as values. Constructions and their sources: docs/railx.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_FABRIC_HAMILTONIANDECOMPOSITION_H
#define PLEXUS_PASSES_FABRIC_HAMILTONIANDECOMPOSITION_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace plexus::fabric {

/// The graph a decomposition covers.
enum class DecompositionGraph {
  Complete,          ///< K_n: vertices 0..n-1, one undirected edge per pair
  CompleteBipartite, ///< K_{n,n}: sides 0..n-1 and n..2n-1, every cross pair
  CompleteDirected,  ///< K*_n: vertices 0..n-1, both arcs of every pair
};

const char *decompositionGraphName(DecompositionGraph graph); // "K_n", ...

/// Default step budget of the even K*_n search (about 30 s at n = 130).
constexpr int64_t kDefaultSearchBudget = 10 * 1000 * 1000;

/// Largest n the constructions accept (K_n stores about n^2/2 vertex ids).
constexpr int64_t kMaxDecompositionOrder = 4096;

/// Edge-disjoint Hamiltonian cycles (and, where the degree is odd, one
/// perfect matching) that together use every edge of `graph` exactly once.
struct HamiltonianDecomposition {
  DecompositionGraph graph = DecompositionGraph::Complete;
  int32_t order = 0; ///< n of K_n, K_{n,n} or K*_n

  /// Each cycle lists every vertex once, in ring order; it closes from the
  /// last vertex back to the first. Directed cycles run in list order.
  std::vector<std::vector<int32_t>> cycles;

  /// The leftover perfect matching: K_n for even n, K_{n,n} for odd n.
  /// Empty otherwise.
  std::vector<std::pair<int32_t, int32_t>> matching;

  /// n for K_n and K*_n, 2n for K_{n,n}.
  int32_t vertexCount() const {
    return graph == DecompositionGraph::CompleteBipartite ? 2 * order : order;
  }
};

enum class DecompositionStatus {
  Ok,
  InvalidOrder,            ///< n < 1 or n > kMaxDecompositionOrder
  NoDirectedDecomposition, ///< K*_4 and K*_6 have none (Bermond-Faber)
  SearchBudgetExhausted,   ///< even K*_n: the bounded search gave up
};

/// A decomposition or the reason there is none. `message` is empty when ok.
struct DecompositionResult {
  DecompositionStatus status = DecompositionStatus::Ok;
  std::string message;
  HamiltonianDecomposition decomposition;
  int64_t searchSteps = 0; ///< even K*_n: search steps taken (else 0)

  bool ok() const { return status == DecompositionStatus::Ok; }
};

/// K_n. Odd n: (n-1)/2 cycles (Walecki). Even n: (n-2)/2 cycles plus a
/// perfect matching. n = 1 and n = 2 give no cycle (K_2: the matching only).
DecompositionResult decomposeComplete(int64_t n);

/// K_{n,n}. Even n: n/2 cycles. Odd n: (n-1)/2 cycles plus a perfect
/// matching. Cycle j joins the difference classes 2j and 2j+1.
DecompositionResult decomposeCompleteBipartite(int64_t n);

/// K*_n into n-1 directed Hamiltonian cycles. Odd n: the Walecki cycles in
/// both orientations, cycle 2j+1 the reverse of cycle 2j. n = 2: the one
/// 2-cycle. n = 4, 6: NoDirectedDecomposition. Even n >= 8: the directed
/// Walecki cycles of K*_{n-1}, each opened at one arc to pass through the
/// extra vertex n-1; the opened arcs form a Hamiltonian path found by a
/// deterministic bounded search (same n, same cycles). `searchBudget` caps
/// the search's steps (0: kDefaultSearchBudget). Measured: n <= 66 takes at
/// most 83K steps (< 0.2 s), n <= 130 at most 1.4M steps (about 3 us a step
/// at n = 130); larger n may give up with SearchBudgetExhausted.
DecompositionResult decomposeCompleteDirected(int64_t n,
                                              int64_t searchBudget = 0);

/// Dispatches on `graph`.
DecompositionResult decompose(DecompositionGraph graph, int64_t n);

/// Number of Hamiltonian cycles a decomposition of `graph` of order n has,
/// and whether it has a matching: the counts the validator expects.
int64_t expectedCycleCount(DecompositionGraph graph, int64_t n);
bool expectsMatching(DecompositionGraph graph, int64_t n);

/// Outcome of validateDecomposition; `message` names the first violation.
struct DecompositionCheck {
  bool ok = true;
  std::string message;
};

/// Checks that every cycle visits each vertex of the graph exactly once
/// along edges of the graph (undirected cycles need >= 3 vertices), that the
/// matching (if any) is perfect, that the cycle count is the expected one,
/// and that cycles and matching together use every edge exactly once.
DecompositionCheck validateDecomposition(const HamiltonianDecomposition &d);

} // namespace plexus::fabric

#endif // PLEXUS_PASSES_FABRIC_HAMILTONIANDECOMPOSITION_H
