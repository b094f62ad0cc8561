#include "passes/StepModel/OneFOneB.h"

#include <algorithm>
#include <numeric>

namespace plexus::step {

int64_t chunkWindow(int64_t stages, int64_t stage, int64_t nSplit) {
  return stages - stage - 1 + nSplit;
}

std::string oneFOneBStageOrder(int64_t stages, int64_t stage,
                               const std::vector<int64_t> &backward,
                               int64_t nSplit, std::vector<int64_t> &ops) {
  ops.clear();
  if (stages < 1 || stage < 0 || stage >= stages)
    return "stage " + std::to_string(stage) + " is not one of " +
           std::to_string(stages);
  const int64_t n = static_cast<int64_t>(backward.size());
  if (n < 1 || nSplit < 1)
    return "a pipeline needs a backward order of its chunks and at least "
           "one chunk";
  const int64_t warm = std::min<int64_t>(
      n, std::max<int64_t>(chunkWindow(stages, stage, nSplit) - 1, 0));
  std::vector<bool> forwarded(static_cast<size_t>(n), false);
  int64_t nextForward = 0;
  auto forward = [&] {
    forwarded[static_cast<size_t>(nextForward)] = true;
    ops.push_back(nextForward++);
  };
  while (nextForward < warm)
    forward();
  for (int64_t j = 0; j < n; ++j) {
    if (nextForward < n)
      forward();
    const int64_t k = backward[static_cast<size_t>(j)];
    if (k < 0 || k >= n || !forwarded[static_cast<size_t>(k)]) {
      ops.clear();
      return "stage " + std::to_string(stage) +
             " would run the backward of position " + std::to_string(k) +
             " before its forward";
    }
    ops.push_back(-(k + 1));
  }
  return "";
}

std::vector<int64_t> oneFOneBOrder(int64_t stages, int64_t stage, int64_t m) {
  std::vector<int64_t> backward(static_cast<size_t>(std::max<int64_t>(m, 0)));
  std::iota(backward.begin(), backward.end(), int64_t(0));
  std::vector<int64_t> ops;
  if (m > 0)
    (void)oneFOneBStageOrder(stages, stage, backward, 1, ops);
  return ops;
}

} // namespace plexus::step
