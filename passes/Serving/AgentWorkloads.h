//===- AgentWorkloads.h - Seeded synthetic agent workloads ------*- C++ -*-===//
//
// SWE-Bench-like and BrowseComp-like agent tasks drawn from a seed, for when
// recorded trajectories are not at hand (reference pipeswift_railx.md
// section 1.7: the paper replays recorded traces and does not publish their
// distributions). The presets' means are the `synthetic` presets of
// docs/language.md section 8; task i is a function of (seed, i) alone, drawn
// with instantiate::StepRng, so a workload is bit-identical on every
// standard library and a longer run extends a shorter one.
//
// The generator, per task (our choices; the reference is silent):
//  - turns T = max(1, round(LogNormal with mean `turns`, log-sd
//    turnsSigma = 0.5)), then cut short where the context would pass
//    `maxLen`;
//  - turn 1: cached 0, new = LogNormal(mean `prompt`, promptSigma = 0.3);
//  - turn t > 1: cached = the previous turn's context (prompt + output: a
//    perfect prefix cache), new = LogNormal(mean `newTokens`,
//    newTokensSigma = 0.8), heavy-tailed like tool outputs (a file dump, a
//    web page);
//  - output = LogNormal(mean `outputTokens`, outputSigma = 0.5);
//  - tool latency = LogNormal(mean `toolLatency`, toolSigma = 0.8) seconds,
//    0 after the last turn;
//  - every token count is at least 1; a task stops before the first turn
//    whose context (prompt + output) would exceed maxLen, and always keeps
//    its first turn, whose prompt and output are cut to fit maxLen;
//  - MTP accepted lengths, when mtpDrafts > 0: each decode step accepts
//    draft k+1 with probability draftAcceptance given that drafts 1..k were
//    accepted, and emits 1 + the accepted drafts (between 1 and
//    1 + mtpDrafts); steps are drawn until they cover output - 1 tokens.
//    With the default 3 drafts and 0.75, the mean is 1 + 0.75 + 0.75^2 +
//    0.75^3 = 2.73 tokens per step.
// A LogNormal with mean m and log-sd s has mu = ln m - s^2 / 2. Each task
// draws from two streams, StepRng(seed, 2 i) for its shape (turn count,
// then per turn new tokens, output and tool latency) and StepRng(seed,
// 2 i + 1) for the acceptances, so recording acceptances (or not) leaves
// the tokens unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_AGENTWORKLOADS_H
#define PLEXUS_PASSES_SERVING_AGENTWORKLOADS_H

#include "passes/Serving/Result.h"
#include "passes/Serving/Trajectory.h"

#include <cstdint>
#include <string>

namespace plexus::serving {

enum class AgentPreset { SweBench, BrowseComp, Custom };

/// The generator's parameters: means (docs/language.md section 8) and the
/// spreads and MTP model above.
struct SyntheticAgentParams {
  AgentPreset preset = AgentPreset::Custom;
  int64_t tasks = 512;
  int64_t concurrency = 128;
  int64_t turns = 30;          // mean turns per task
  int64_t prompt = 8000;       // mean prompt tokens of the first turn
  int64_t newTokens = 1500;    // mean new prompt tokens of a later turn
  int64_t outputTokens = 600;  // mean output tokens per turn
  double toolLatency = 3.0;    // mean seconds between turns
  int64_t maxLen = 81920;      // context cap per task
  double turnsSigma = 0.5;     // log-sd of the turn count
  double promptSigma = 0.3;    // log-sd of the first prompt
  double newTokensSigma = 0.8; // log-sd of the new tokens of later turns
  double outputSigma = 0.5;    // log-sd of the output
  double toolSigma = 0.8;      // log-sd of the tool latency
  int64_t mtpDrafts = 3;       // drafts per step recorded; 0 = none
  double draftAcceptance = 0.75;
};

/// SWE-Bench-like: 512 tasks, concurrency 128, 30 turns, first prompt
/// 8,000, 1,500 new tokens per turn, 600 output, 3 s tools, 80K cap.
SyntheticAgentParams sweBenchPreset();
/// BrowseComp-like: 512 tasks, concurrency 80, 20 turns, first prompt
/// 2,000, 3,000 new tokens per turn, 400 output, 2 s tools, 80K cap.
SyntheticAgentParams browseCompPreset();

/// Expected tokens per decode step of the acceptance model:
/// sum_{k=0..drafts} p^k (1 when drafts = 0).
double expectedAcceptedTokens(int64_t drafts, double acceptance);

/// Problems with the parameters (non-positive counts, maxLen too small for
/// one token of prompt and output, acceptance outside [0, 1], negative or
/// non-finite spreads); empty when valid.
std::string checkSyntheticAgentParams(const SyntheticAgentParams &p);

/// Task `index` (0-based) of the workload of `seed`; its id is
/// "<preset>-<index>".
AgentTask generateAgentTask(const SyntheticAgentParams &p, uint64_t seed,
                            int64_t index);

/// All `tasks` tasks, with the parameters' concurrency.
Result<AgentWorkload> generateAgentWorkload(const SyntheticAgentParams &p,
                                            uint64_t seed);

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_AGENTWORKLOADS_H
