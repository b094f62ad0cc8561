//===- HamiltonianDecomposition.cpp - Rings that cover complete graphs ----===//
//
// Constructions (our own code; the graph theory is textbook):
//  * K_n, n = 2k+1 odd: Walecki. Vertex 2k is the hub, 0..2k-1 sit on a
//    circle (Z_2k). Cycle i (0 <= i < k) is hub, i, i+1, i-1, i+2, i-2, ...,
//    i+k: a zigzag whose edges {x,y} have x+y = 2i or 2i+1 (mod 2k).
//  * K_n, n = 2k+2 even: the same k zigzag paths on Z_2k with two hubs. Hub
//    A (n-2) closes path i from end to end; hub B (n-1) is spliced into the
//    one edge of path i that joins antipodal points {x, x+k}. The k removed
//    antipodal edges plus {A, B} are the perfect matching.
//  * K_{n,n}: difference classes D_d = {a_i b_{i+d}} are perfect matchings;
//    D_d and D_{d+1} together form one 2n-cycle a_i, b_{i+d}, a_{i-1}, ...
//  * K*_n, n odd: the Walecki cycles in both orientations.
//  * K*_n, n even >= 8: the n-2 directed Walecki cycles of K*_{n-1}; in each
//    one arc u->v is opened and replaced by u->X->v, X = n-1. The opened
//    arcs, one per cycle, must form a Hamiltonian path P = x..y of K*_{n-1};
//    the last cycle is then X, x, ..., y. P is found by a deterministic
//    depth-first search with restarts (see findRainbowPath).
//
//===----------------------------------------------------------------------===//

#include "passes/Fabric/HamiltonianDecomposition.h"

#include <algorithm>

namespace plexus::fabric {

namespace {

using Cycle = std::vector<int32_t>;

int32_t mod(int64_t a, int64_t m) {
  int64_t r = a % m;
  return static_cast<int32_t>(r < 0 ? r + m : r);
}

/// Walecki zigzag path i on Z_2k: i, i+1, i-1, i+2, i-2, ..., i+k.
Cycle zigzagPath(int32_t k, int32_t i) {
  Cycle p;
  p.reserve(2 * k);
  p.push_back(i);
  for (int32_t j = 1; j <= k; ++j) {
    p.push_back(mod(i + j, 2 * k));
    if (j < k)
      p.push_back(mod(i - j, 2 * k));
  }
  return p;
}

/// Walecki cycles of K_n, n odd: hub n-1 first, then zigzag path i.
std::vector<Cycle> waleckiCycles(int32_t n) {
  int32_t k = (n - 1) / 2;
  std::vector<Cycle> cycles;
  cycles.reserve(k);
  for (int32_t i = 0; i < k; ++i) {
    Cycle c;
    c.reserve(n);
    c.push_back(n - 1);
    Cycle p = zigzagPath(k, i);
    c.insert(c.end(), p.begin(), p.end());
    cycles.push_back(std::move(c));
  }
  return cycles;
}

DecompositionResult failure(DecompositionStatus status, std::string message) {
  DecompositionResult r;
  r.status = status;
  r.message = std::move(message);
  return r;
}

bool orderInRange(int64_t n) { return n >= 1 && n <= kMaxDecompositionOrder; }

DecompositionResult badOrder(DecompositionGraph graph, int64_t n) {
  return failure(DecompositionStatus::InvalidOrder,
                 std::string(decompositionGraphName(graph)) +
                     ": order must be in [1, " +
                     std::to_string(kMaxDecompositionOrder) + "], got " +
                     std::to_string(n));
}

/// splitmix64: a fixed, portable generator so that searches are
/// reproducible on every platform.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

/// Depth-first search for a Hamiltonian path of K*_m that uses exactly one
/// arc of every colour, where colour c is the arc set of the directed
/// Hamiltonian cycle `cycles[c]` (m-1 colours, m-1 path arcs).
///
/// Forward checking: an arc is still available when its tail is the path's
/// end or unvisited and its head is unvisited; a step that leaves an unused
/// colour with no available arc is never taken. Among the remaining steps,
/// the scarcest colour goes first, then the vertex with the fewest onward
/// options, then a seeded random key. Each attempt has a step budget and
/// restarts from a new vertex with new keys, which cuts the heavy tail of
/// one long search. Every colour class is a 1-factor (one out-arc and one
/// in-arc per vertex), so a step updates the counts in O(colours).
class RainbowPathSearch {
public:
  RainbowPathSearch(int32_t order, const std::vector<Cycle> &cycles)
      : m(order), colours(static_cast<int32_t>(cycles.size())),
        colour(size_t(m) * m, -1), succ(size_t(colours) * m),
        pred(size_t(colours) * m) {
    for (int32_t c = 0; c < colours; ++c)
      for (int32_t j = 0; j < m; ++j) {
        int32_t u = cycles[c][j], v = cycles[c][(j + 1) % m];
        colour[size_t(u) * m + v] = c;
        succ[size_t(c) * m + u] = v;
        pred[size_t(c) * m + v] = u;
      }
  }

  /// The path as vertex order, or empty when the budget ran out.
  Cycle run(int64_t budget, uint64_t seed) {
    SplitMix64 rng{seed};
    spent = 0;
    // Per attempt: many times what a lucky run needs, small enough that an
    // unlucky one is abandoned early.
    int64_t perAttempt = std::max<int64_t>(4096, 512 * int64_t(m));
    while (spent < budget) {
      steps = 0;
      stepLimit = std::min(perAttempt, budget - spent);
      tieKey.resize(m);
      for (auto &k : tieKey)
        k = rng.next();
      int32_t start = static_cast<int32_t>(rng.next() % uint64_t(m));
      begin(start);
      bool found = extend();
      spent += steps;
      if (found)
        return path;
    }
    return {};
  }

private:
  int32_t m, colours;
  std::vector<int32_t> colour;    // colour of arc u->v, m*m
  std::vector<int32_t> succ;      // succ[c*m+u]: head of u's c-arc
  std::vector<int32_t> pred;      // pred[c*m+v]: tail of v's c-arc
  std::vector<char> visited;      // per vertex (the path's end included)
  std::vector<char> used;         // per colour
  std::vector<int32_t> available; // per colour: arcs still usable
  std::vector<uint64_t> tieKey;   // per vertex, per attempt
  Cycle path;
  int64_t steps = 0, stepLimit = 0;

public:
  int64_t spent = 0; ///< steps over all attempts of the last run

private:
  bool tailOk(int32_t x) const { return !visited[x] || x == path.back(); }

  void begin(int32_t start) {
    visited.assign(m, 0);
    used.assign(colours, 0);
    available.assign(colours, m); // every arc of K*_m is usable
    path.assign(1, start);
    visited[start] = 1;
    // Arcs into `start` are gone (its out-arcs remain: it is the end).
    for (int32_t c = 0; c < colours; ++c)
      --available[c];
  }

  /// Applies (sign = -1) or undoes (sign = +1) the availability change of
  /// stepping from the path's end u to the unvisited v, before the state
  /// change (apply) or after it has been reverted (undo).
  void shiftAvailability(int32_t u, int32_t v, int sign) {
    for (int32_t c = 0; c < colours; ++c) {
      int32_t w = succ[size_t(c) * m + u];
      if (!visited[w]) // u stops being a tail: its arc to w
        available[c] += sign;
      int32_t x = pred[size_t(c) * m + v];
      if (x != u && tailOk(x)) // v stops being a head: the arc x -> v
        available[c] += sign;
    }
  }

  void step(int32_t v) {
    int32_t u = path.back();
    shiftAvailability(u, v, -1);
    used[colour[size_t(u) * m + v]] = 1;
    visited[v] = 1;
    path.push_back(v);
  }

  void unstep() {
    int32_t v = path.back();
    path.pop_back();
    int32_t u = path.back();
    visited[v] = 0;
    used[colour[size_t(u) * m + v]] = 0;
    shiftAvailability(u, v, +1);
  }

  /// False when some unused colour has no usable arc left.
  bool coloursFeasible() const {
    for (int32_t c = 0; c < colours; ++c)
      if (!used[c] && available[c] == 0)
        return false;
    return true;
  }

  int32_t onwardOptions() const {
    int32_t u = path.back(), count = 0;
    for (int32_t w = 0; w < m; ++w)
      count += !visited[w] && !used[colour[size_t(u) * m + w]];
    return count;
  }

  bool extend() {
    if (static_cast<int32_t>(path.size()) == m)
      return true;
    if (++steps > stepLimit)
      return false;
    int32_t u = path.back();
    struct Option {
      int32_t scarcity, onward;
      uint64_t key;
      int32_t v;
    };
    std::vector<Option> next;
    bool last = static_cast<int32_t>(path.size()) + 1 == m;
    for (int32_t v = 0; v < m; ++v) {
      if (visited[v])
        continue;
      int32_t c = colour[size_t(u) * m + v];
      if (used[c])
        continue;
      int32_t scarcity = available[c];
      step(v);
      bool ok = coloursFeasible();
      int32_t onward = onwardOptions();
      unstep();
      if (ok && (last || onward > 0))
        next.push_back({scarcity, onward, tieKey[v], v});
    }
    std::sort(next.begin(), next.end(), [](const Option &a, const Option &b) {
      if (a.scarcity != b.scarcity)
        return a.scarcity < b.scarcity;
      if (a.onward != b.onward)
        return a.onward < b.onward;
      return a.key < b.key;
    });
    for (const Option &o : next) {
      step(o.v);
      if (extend())
        return true;
      unstep();
      if (steps > stepLimit)
        return false;
    }
    return false;
  }
};

} // namespace

const char *decompositionGraphName(DecompositionGraph graph) {
  switch (graph) {
  case DecompositionGraph::Complete:
    return "K_n";
  case DecompositionGraph::CompleteBipartite:
    return "K_{n,n}";
  case DecompositionGraph::CompleteDirected:
    return "K*_n";
  }
  return "?";
}

int64_t expectedCycleCount(DecompositionGraph graph, int64_t n) {
  if (n < 1)
    return 0;
  switch (graph) {
  case DecompositionGraph::Complete:
    return (n - 1) / 2; // (n-1)/2 odd, (n-2)/2 even
  case DecompositionGraph::CompleteBipartite:
    return n / 2; // n/2 even, (n-1)/2 odd
  case DecompositionGraph::CompleteDirected:
    return n - 1;
  }
  return 0;
}

bool expectsMatching(DecompositionGraph graph, int64_t n) {
  switch (graph) {
  case DecompositionGraph::Complete:
    return n % 2 == 0;
  case DecompositionGraph::CompleteBipartite:
    return n % 2 == 1;
  case DecompositionGraph::CompleteDirected:
    return false;
  }
  return false;
}

DecompositionResult decomposeComplete(int64_t n64) {
  if (!orderInRange(n64))
    return badOrder(DecompositionGraph::Complete, n64);
  DecompositionResult r;
  HamiltonianDecomposition &d = r.decomposition;
  d.graph = DecompositionGraph::Complete;
  int32_t n = static_cast<int32_t>(n64);
  d.order = n;
  if (n % 2 == 1) {
    d.cycles = waleckiCycles(n);
    return r;
  }
  // Even n = 2k + 2: hubs A = n-2 and B = n-1 around the k zigzag paths.
  int32_t k = (n - 2) / 2, hubA = n - 2, hubB = n - 1;
  for (int32_t i = 0; i < k; ++i) {
    Cycle p = zigzagPath(k, i);
    // The antipodal edge of path i: consecutive x, y with y - x = +-k.
    size_t cut = 0;
    for (size_t j = 0; j + 1 < p.size(); ++j)
      if (mod(p[j + 1] - p[j], 2 * k) == k) {
        cut = j;
        break;
      }
    Cycle c;
    c.reserve(n);
    c.push_back(hubA);
    c.insert(c.end(), p.begin(), p.begin() + cut + 1);
    c.push_back(hubB);
    c.insert(c.end(), p.begin() + cut + 1, p.end());
    d.matching.emplace_back(p[cut], p[cut + 1]);
    d.cycles.push_back(std::move(c));
  }
  d.matching.emplace_back(hubA, hubB);
  std::sort(d.matching.begin(), d.matching.end(), [](auto a, auto b) {
    return std::min(a.first, a.second) < std::min(b.first, b.second);
  });
  return r;
}

DecompositionResult decomposeCompleteBipartite(int64_t n64) {
  if (!orderInRange(n64))
    return badOrder(DecompositionGraph::CompleteBipartite, n64);
  DecompositionResult r;
  HamiltonianDecomposition &d = r.decomposition;
  d.graph = DecompositionGraph::CompleteBipartite;
  int32_t n = static_cast<int32_t>(n64);
  d.order = n;
  // a_i = i, b_j = n + j. Cycle j pairs differences 2j and 2j+1:
  // a_i -> b_{i+2j} -> a_{i-1} (since (i+2j) - (i-1) = 2j+1) -> ...
  for (int32_t j = 0; j < n / 2; ++j) {
    Cycle c;
    c.reserve(2 * n);
    for (int32_t s = 0; s < n; ++s) {
      int32_t a = mod(-s, n);
      c.push_back(a);
      c.push_back(n + mod(a + 2 * j, n));
    }
    d.cycles.push_back(std::move(c));
  }
  if (n % 2 == 1)
    for (int32_t i = 0; i < n; ++i)
      d.matching.emplace_back(i, n + mod(i + n - 1, n));
  return r;
}

DecompositionResult decomposeCompleteDirected(int64_t n64,
                                              int64_t searchBudget) {
  if (!orderInRange(n64))
    return badOrder(DecompositionGraph::CompleteDirected, n64);
  if (n64 == 4 || n64 == 6)
    return failure(DecompositionStatus::NoDirectedDecomposition,
                   "K*_" + std::to_string(n64) +
                       " has no decomposition into directed Hamiltonian "
                       "cycles (only n = 4 and n = 6 lack one)");
  DecompositionResult r;
  HamiltonianDecomposition &d = r.decomposition;
  d.graph = DecompositionGraph::CompleteDirected;
  int32_t n = static_cast<int32_t>(n64);
  d.order = n;
  if (n == 1)
    return r;
  if (n == 2) {
    d.cycles.push_back({0, 1});
    return r;
  }
  auto bothWays = [](int32_t odd) {
    std::vector<Cycle> out;
    for (Cycle &c : waleckiCycles(odd)) {
      Cycle back(c.rbegin(), c.rend());
      out.push_back(std::move(c));
      out.push_back(std::move(back));
    }
    return out;
  };
  if (n % 2 == 1) {
    d.cycles = bothWays(n);
    return r;
  }
  // Even n >= 8: open one arc per directed Walecki cycle of K*_{n-1}.
  int32_t m = n - 1, extra = n - 1;
  std::vector<Cycle> base = bothWays(m);
  int64_t budget = searchBudget > 0 ? searchBudget : kDefaultSearchBudget;
  RainbowPathSearch search(m, base);
  Cycle path = search.run(budget, 0x706c6578ULL ^ uint64_t(n));
  r.searchSteps = search.spent;
  if (path.empty())
    return failure(DecompositionStatus::SearchBudgetExhausted,
                   "K*_" + std::to_string(n) +
                       ": the search for a rainbow Hamiltonian path gave up "
                       "after " +
                       std::to_string(budget) + " steps");
  // Arc path[j] -> path[j+1] belongs to exactly one base cycle: open it.
  std::vector<int32_t> cycleOf(size_t(m) * m, -1), posIn(size_t(m) * m, -1);
  for (size_t c = 0; c < base.size(); ++c)
    for (int32_t j = 0; j < m; ++j) {
      size_t arc = size_t(base[c][j]) * m + base[c][(j + 1) % m];
      cycleOf[arc] = static_cast<int32_t>(c);
      posIn[arc] = j;
    }
  for (int32_t j = 0; j + 1 < m; ++j) {
    size_t arc = size_t(path[j]) * m + path[j + 1];
    Cycle &c = base[cycleOf[arc]];
    c.insert(c.begin() + posIn[arc] + 1, extra);
  }
  Cycle last;
  last.reserve(n);
  last.push_back(extra);
  last.insert(last.end(), path.begin(), path.end());
  base.push_back(std::move(last));
  d.cycles = std::move(base);
  return r;
}

DecompositionResult decompose(DecompositionGraph graph, int64_t n) {
  switch (graph) {
  case DecompositionGraph::Complete:
    return decomposeComplete(n);
  case DecompositionGraph::CompleteBipartite:
    return decomposeCompleteBipartite(n);
  case DecompositionGraph::CompleteDirected:
    return decomposeCompleteDirected(n);
  }
  return badOrder(graph, n);
}

DecompositionCheck validateDecomposition(const HamiltonianDecomposition &d) {
  auto fail = [](std::string message) {
    return DecompositionCheck{false, std::move(message)};
  };
  const int64_t n = d.order;
  if (n < 1 || n > kMaxDecompositionOrder)
    return fail("order " + std::to_string(n) + " out of range");
  const bool directed = d.graph == DecompositionGraph::CompleteDirected;
  const bool bipartite = d.graph == DecompositionGraph::CompleteBipartite;
  const int64_t v = d.vertexCount();

  // Is {a, b} (a -> b when directed) an edge of the graph?
  auto isEdge = [&](int32_t a, int32_t b) {
    if (a == b)
      return false;
    if (bipartite)
      return (a < n) != (b < n);
    return true;
  };
  std::vector<uint8_t> uses(size_t(v) * v, 0);
  std::string dup;
  // Records one use of edge {a, b}; the first reuse is reported.
  auto use = [&](int32_t a, int32_t b, const std::string &where) {
    size_t idx = directed || a < b ? size_t(a) * v + b : size_t(b) * v + a;
    if (uses[idx]++ && dup.empty())
      dup = where + " reuses " + (directed ? "arc " : "edge ") +
            std::to_string(a) + (directed ? " -> " : " - ") + std::to_string(b);
  };
  auto inRange = [&](int32_t x) { return x >= 0 && x < v; };

  int64_t expected = expectedCycleCount(d.graph, n);
  if (static_cast<int64_t>(d.cycles.size()) != expected)
    return fail(std::string(decompositionGraphName(d.graph)) + " with n = " +
                std::to_string(n) + " needs " + std::to_string(expected) +
                " Hamiltonian cycles, got " + std::to_string(d.cycles.size()));

  std::vector<int32_t> seen(v, -1);
  for (size_t ci = 0; ci < d.cycles.size(); ++ci) {
    const Cycle &c = d.cycles[ci];
    std::string where = "cycle " + std::to_string(ci);
    if (static_cast<int64_t>(c.size()) != v)
      return fail(where + " has " + std::to_string(c.size()) +
                  " vertices, a Hamiltonian cycle needs " + std::to_string(v));
    if (!directed && v < 3)
      return fail(where + ": an undirected cycle needs at least 3 vertices");
    for (int32_t x : c) {
      if (!inRange(x))
        return fail(where + " names vertex " + std::to_string(x) +
                    ", outside 0.." + std::to_string(v - 1));
      if (seen[x] == static_cast<int32_t>(ci))
        return fail(where + " visits vertex " + std::to_string(x) + " twice");
      seen[x] = static_cast<int32_t>(ci);
    }
    for (size_t j = 0; j < c.size(); ++j) {
      int32_t a = c[j], b = c[(j + 1) % c.size()];
      if (!isEdge(a, b))
        return fail(where + " steps " + std::to_string(a) + " - " +
                    std::to_string(b) + ", which is not an edge");
      use(a, b, where);
    }
  }
  bool wantMatching = expectsMatching(d.graph, n);
  if (!wantMatching && !d.matching.empty())
    return fail("this decomposition has no matching, got " +
                std::to_string(d.matching.size()) + " edges");
  if (wantMatching) {
    if (static_cast<int64_t>(d.matching.size()) * 2 != v)
      return fail("the perfect matching needs " + std::to_string(v / 2) +
                  " edges, got " + std::to_string(d.matching.size()));
    std::vector<char> matched(v, 0);
    for (auto [a, b] : d.matching) {
      if (!inRange(a) || !inRange(b) || !isEdge(a, b))
        return fail("matching edge " + std::to_string(a) + " - " +
                    std::to_string(b) + " is not an edge");
      if (matched[a] || matched[b])
        return fail("matching covers vertex " +
                    std::to_string(matched[a] ? a : b) + " twice");
      matched[a] = matched[b] = 1;
      use(a, b, "the matching");
    }
  }
  if (!dup.empty())
    return fail(dup);
  // Every edge used exactly once: counts match, no reuse, so no edge missed;
  // check explicitly anyway so a wrong count rule cannot hide a gap.
  for (int32_t a = 0; a < v; ++a)
    for (int32_t b = directed ? 0 : a + 1; b < v; ++b)
      if (isEdge(a, b) && uses[size_t(a) * v + b] != 1)
        return fail(std::string(directed ? "arc " : "edge ") +
                    std::to_string(a) + (directed ? " -> " : " - ") +
                    std::to_string(b) + " is not covered");
  return {};
}

} // namespace plexus::fabric
