//===- AgentWorkloads.cpp - Seeded synthetic agent workloads --------------===//

#include "passes/Serving/AgentWorkloads.h"

#include "passes/Instantiate/BatchSampler.h"

#include <algorithm>
#include <cmath>

namespace plexus::serving {

namespace {

using instantiate::portableExp;
using instantiate::portableLog;
using instantiate::StepRng;

// Two independent streams per task: the shape of the task (turns, tokens,
// latencies) and the MTP acceptances, so that recording acceptances does not
// change the tokens.
constexpr uint64_t kShapeStream = 0;
constexpr uint64_t kAcceptStream = 1;
constexpr uint64_t kStreams = 2;

/// A draw of LogNormal with mean `mean` and log-sd `sigma`.
double logNormal(StepRng &rng, double mean, double sigma) {
  if (sigma == 0)
    return mean;
  double mu = portableLog(mean) - sigma * sigma / 2;
  return portableExp(mu + sigma * rng.normal());
}

/// A positive count near a log-normal draw (round half up, at least 1).
int64_t countDraw(StepRng &rng, double mean, double sigma) {
  double v = std::floor(logNormal(rng, mean, sigma) + 0.5);
  // Far above any context cap; keeps the conversion defined.
  v = std::min(v, 0x1.0p50);
  return std::max<int64_t>(1, int64_t(v));
}

const char *presetName(AgentPreset p) {
  switch (p) {
  case AgentPreset::SweBench:
    return "swe_bench";
  case AgentPreset::BrowseComp:
    return "browsecomp";
  case AgentPreset::Custom:
    return "custom";
  }
  return "custom";
}

} // namespace

SyntheticAgentParams sweBenchPreset() {
  SyntheticAgentParams p;
  p.preset = AgentPreset::SweBench;
  p.tasks = 512;
  p.concurrency = 128;
  p.turns = 30;
  p.prompt = 8000;
  p.newTokens = 1500;
  p.outputTokens = 600;
  p.toolLatency = 3.0;
  p.maxLen = 81920;
  return p;
}

SyntheticAgentParams browseCompPreset() {
  SyntheticAgentParams p;
  p.preset = AgentPreset::BrowseComp;
  p.tasks = 512;
  p.concurrency = 80;
  p.turns = 20;
  p.prompt = 2000;
  p.newTokens = 3000;
  p.outputTokens = 400;
  p.toolLatency = 2.0;
  p.maxLen = 81920;
  return p;
}

double expectedAcceptedTokens(int64_t drafts, double acceptance) {
  double sum = 1, term = 1;
  for (int64_t k = 0; k < drafts; ++k) {
    term *= acceptance;
    sum += term;
  }
  return sum;
}

std::string checkSyntheticAgentParams(const SyntheticAgentParams &p) {
  if (p.tasks < 1 || p.concurrency < 1 || p.turns < 1 || p.prompt < 1 ||
      p.newTokens < 1 || p.outputTokens < 1)
    return "tasks, concurrency, turns, prompt, new_tokens and output_tokens "
           "must be at least 1";
  if (p.maxLen < 2)
    return "max_len (" + std::to_string(p.maxLen) +
           ") must hold one prompt and one output token";
  if (!(p.toolLatency >= 0) || !std::isfinite(p.toolLatency))
    return "tool_latency must be a finite number >= 0";
  for (double s : {p.turnsSigma, p.promptSigma, p.newTokensSigma, p.outputSigma,
                   p.toolSigma})
    if (!(s >= 0) || !std::isfinite(s) || s > 4)
      return "every log-sd must be in [0, 4]";
  if (p.mtpDrafts < 0 || p.mtpDrafts > 64)
    return "mtp drafts must be in [0, 64]";
  if (!(p.draftAcceptance >= 0 && p.draftAcceptance <= 1))
    return "the draft acceptance must be in [0, 1]";
  return "";
}

AgentTask generateAgentTask(const SyntheticAgentParams &p, uint64_t seed,
                            int64_t index) {
  StepRng shape(seed, uint64_t(index) * kStreams + kShapeStream);
  StepRng accept(seed, uint64_t(index) * kStreams + kAcceptStream);

  AgentTask task;
  task.id = std::string(presetName(p.preset)) + "-" + std::to_string(index);
  int64_t turns = countDraw(shape, double(p.turns), p.turnsSigma);
  int64_t context = 0; // tokens in the cache after the previous turn
  for (int64_t t = 0; t < turns; ++t) {
    AgentTurn turn;
    turn.cachedTokens = context;
    turn.newTokens =
        t == 0 ? countDraw(shape, double(p.prompt), p.promptSigma)
               : countDraw(shape, double(p.newTokens), p.newTokensSigma);
    turn.outputTokens = countDraw(shape, double(p.outputTokens), p.outputSigma);
    turn.toolLatency = logNormal(shape, p.toolLatency, p.toolSigma);
    if (turn.contextAfter() > p.maxLen) {
      if (t > 0)
        break;
      // The first turn is kept, cut to fit: output to a quarter of the cap
      // at most, the prompt to what is left.
      turn.outputTokens =
          std::min(turn.outputTokens, std::max<int64_t>(1, p.maxLen / 4));
      turn.newTokens = std::min(turn.newTokens, p.maxLen - turn.outputTokens);
    }
    if (p.mtpDrafts > 0) {
      // Steps until output - 1 tokens are covered (the first output token
      // comes from the prefill).
      for (int64_t covered = 0; covered < turn.outputTokens - 1;) {
        int32_t emitted = 1;
        while (emitted <= p.mtpDrafts && accept.uniform() < p.draftAcceptance)
          ++emitted;
        turn.mtpAccepted.push_back(emitted);
        covered += emitted;
      }
    }
    context = turn.contextAfter();
    task.turns.push_back(std::move(turn));
  }
  task.turns.back().toolLatency = 0;
  return task;
}

Result<AgentWorkload> generateAgentWorkload(const SyntheticAgentParams &p,
                                            uint64_t seed) {
  std::string problem = checkSyntheticAgentParams(p);
  if (!problem.empty())
    return Result<AgentWorkload>::fail(problem);
  AgentWorkload w;
  w.concurrency = p.concurrency;
  w.tasks.reserve(size_t(p.tasks));
  for (int64_t i = 0; i < p.tasks; ++i)
    w.tasks.push_back(generateAgentTask(p, seed, i));
  return Result<AgentWorkload>::ok(std::move(w));
}

} // namespace plexus::serving
