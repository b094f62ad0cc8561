#include "passes/StepModel/StepPlan.h"

namespace plexus::step {

RankPosition positionOf(const GroupLayout &l, int64_t local) {
  RankPosition p;
  p.t = local % l.tp;
  local /= l.tp;
  p.c = local % l.cp;
  local /= l.cp;
  p.u = local % l.ulysses;
  p.stage = local / l.ulysses;
  return p;
}

int64_t localRankOf(const GroupLayout &l, const RankPosition &p) {
  return ((p.stage * l.ulysses + p.u) * l.cp + p.c) * l.tp + p.t;
}

} // namespace plexus::step
