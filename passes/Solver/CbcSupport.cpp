//===- CbcSupport.cpp - What every CBC solve in Plexus shares -------------===//
#include "passes/Solver/CbcSupport.h"

namespace plexus::solver {

std::mutex &cbcSolveMutex() {
  static std::mutex m;
  return m;
}

void configureDeterministic(Cbc_Model *model, bool lean) {
  Cbc_setLogLevel(model, 0);
  Cbc_setParameter(model, "threads", "0");
  Cbc_setParameter(model, "randomSeed", "1234567");
  Cbc_setParameter(model, "randomCbcSeed", "1234567");
  if (lean) {
    Cbc_setParameter(model, "cuts", "off");
    Cbc_setParameter(model, "heuristicsOnOff", "off");
    Cbc_setParameter(model, "preprocess", "off");
    Cbc_setParameter(model, "strong", "0");
    Cbc_setParameter(model, "trust", "0");
  }
  Cbc_setParameter(model, "depthMiniBab", "-999");
}

} // namespace plexus::solver
