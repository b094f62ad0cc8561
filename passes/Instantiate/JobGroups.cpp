//===- JobGroups.cpp - The communicators a job's static layout needs ------===//
#include "passes/Instantiate/JobGroups.h"

using namespace plexus::instantiate;

namespace {
std::string str(int64_t v) { return std::to_string(v); }
} // namespace

GroupsResult plexus::instantiate::trainGroups(const TrainLayout &l) {
  GroupsResult result;
  if (l.ranks < 1 || l.tensor < 1 || l.sp < 1 || l.pp < 1) {
    result.error = "degrees and ranks must be at least 1";
    return result;
  }
  int64_t inner = l.tensor * l.sp * l.pp;
  if (l.ranks % inner != 0) {
    result.error = "tensor x sp x pp = " + str(l.tensor) + " x " + str(l.sp) +
                   " x " + str(l.pp) + " = " + str(inner) +
                   " does not divide the job's " + str(l.ranks) + " ranks";
    return result;
  }
  const int64_t T = l.tensor, S = l.sp, P = l.pp, D = l.ranks / inner;
  auto rank = [&](int64_t p, int64_t d, int64_t s, int64_t t) {
    return ((d * P + p) * S + s) * T + t;
  };
  int64_t count = 0;
  if (T > 1)
    for (int64_t d = 0; d < D; ++d)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t s = 0; s < S; ++s) {
          JobGroup g{"tp" + str(count++), GroupKind::Ring, {}};
          for (int64_t t = 0; t < T; ++t)
            g.ranks.push_back(rank(p, d, s, t));
          result.groups.push_back(std::move(g));
        }
  count = 0;
  if (S > 1)
    for (int64_t d = 0; d < D; ++d)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t t = 0; t < T; ++t) {
          JobGroup g{"sp" + str(count++), GroupKind::AllToAll, {}};
          for (int64_t s = 0; s < S; ++s)
            g.ranks.push_back(rank(p, d, s, t));
          result.groups.push_back(std::move(g));
        }
  count = 0;
  if (D > 1)
    for (int64_t p = 0; p < P; ++p)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t t = 0; t < T; ++t) {
          JobGroup g{"dp" + str(count++), GroupKind::Ring, {}};
          for (int64_t d = 0; d < D; ++d)
            g.ranks.push_back(rank(p, d, s, t));
          result.groups.push_back(std::move(g));
        }
  count = 0;
  if (P > 1)
    for (int64_t d = 0; d < D; ++d)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t t = 0; t < T; ++t) {
          JobGroup g{"pp" + str(count++), GroupKind::Pipeline, {}};
          for (int64_t p = 0; p < P; ++p)
            g.ranks.push_back(rank(p, d, s, t));
          result.groups.push_back(std::move(g));
        }
  return result;
}

GroupsResult plexus::instantiate::serveGroups(const ServeLayout &l) {
  GroupsResult result;
  if (l.ranks < 1 || l.ep < 1 || l.pp < 1) {
    result.error = "degrees and ranks must be at least 1";
    return result;
  }
  if (l.ranks % (l.ep * l.pp) != 0) {
    result.error = "pp x ep = " + str(l.pp) + " x " + str(l.ep) + " = " +
                   str(l.pp * l.ep) + " does not divide the job's " +
                   str(l.ranks) + " ranks";
    return result;
  }
  const int64_t E = l.ep, P = l.pp, I = l.ranks / (E * P);
  int64_t count = 0;
  if (E > 1)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t p = 0; p < P; ++p) {
        JobGroup g{"ep" + str(count++), GroupKind::AllToAll, {}};
        for (int64_t e = 0; e < E; ++e)
          g.ranks.push_back((i * P + p) * E + e);
        result.groups.push_back(std::move(g));
      }
  count = 0;
  if (P > 1)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t e = 0; e < E; ++e) {
        JobGroup g{"pp" + str(count++), GroupKind::Pipeline, {}};
        for (int64_t p = 0; p < P; ++p)
          g.ranks.push_back((i * P + p) * E + e);
        result.groups.push_back(std::move(g));
      }
  return result;
}

int64_t plexus::instantiate::nodeLocalSpDegree(int64_t chipsPerNode,
                                               int64_t heads, int64_t ranks,
                                               int64_t tensor) {
  int64_t degree = 1;
  for (int64_t d = 2; d <= chipsPerNode; d *= 2)
    if (heads % d == 0 && tensor > 0 && ranks % (tensor * d) == 0)
      degree = d;
  return degree;
}
