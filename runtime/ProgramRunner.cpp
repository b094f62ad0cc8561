//===- ProgramRunner.cpp - runProgram's body, on any Comm -----------------===//
//
// Every rank parses the same flags and checks the same world size, so a
// usage error ends every rank the same way (rank 0 says why). A failed op
// ends only its own rank's program; its peers may then wait forever in a
// collective or a recv, so after printing the error the rank stops the
// world (ProgramHost::abortWorld, MPI_Abort) when it has more than one rank.
//
//===----------------------------------------------------------------------===//
#include "runtime/ProgramRunner.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace plexus::runtime {

namespace {

struct Flags {
  int64_t steps = 1;
  bool check = false;
  bool profile = false;
  double tolerance = 1e-5;
};

const char *kUsage = "usage: %s [--steps N] [--check] [--tolerance X] "
                     "[--profile]\n";

bool parseInt(const char *text, int64_t &out) {
  char *end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (!*text || *end)
    return false;
  out = v;
  return true;
}

bool parseDouble(const char *text, double &out) {
  char *end = nullptr;
  const double v = std::strtod(text, &end);
  if (!*text || *end)
    return false;
  out = v;
  return true;
}

/// Empty on success, else what is wrong with the flags.
std::string parseFlags(int argc, char **argv, Flags &flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    bool hasValue = false;
    std::string name = arg;
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    auto next = [&](std::string &out) {
      if (hasValue) {
        out = value;
        return true;
      }
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    if (name == "--steps") {
      std::string v;
      if (!next(v))
        return "--steps needs a value";
      if (!parseInt(v.c_str(), flags.steps) || flags.steps < 1)
        return "--steps needs a positive integer, got '" + v + "'";
    } else if (name == "--tolerance") {
      std::string v;
      if (!next(v))
        return "--tolerance needs a value";
      if (!parseDouble(v.c_str(), flags.tolerance) || !(flags.tolerance > 0))
        return "--tolerance needs a positive number, got '" + v + "'";
    } else if (name == "--check" && !hasValue) {
      flags.check = true;
    } else if (name == "--profile" && !hasValue) {
      flags.profile = true;
    } else {
      return "unknown argument '" + arg + "'";
    }
  }
  return "";
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

class Runner {
public:
  Runner(const ProgramSpec &spec, const ProgramHost &host)
      : spec(spec), host(host), comm(host.comm) {
    for (int r = 0; r < comm.size(); ++r)
      world.push_back(r);
  }

  /// Prints a failed op and ends this rank (aborting the world when peers
  /// may wait for it).
  int fail(const Status &st) {
    std::fprintf(stderr, "%s: error on rank %d: %s\n", spec.name.c_str(),
                 comm.rank(), st.message().c_str());
    std::fflush(stderr);
    std::fflush(stdout);
    if (comm.size() > 1)
      host.abortWorld(1);
    (void)host.finalize();
    return 1;
  }

  int run(const Flags &flags) {
    const int rank = comm.rank();
    ExecutorOptions options;
    options.layers = spec.ranks[static_cast<size_t>(rank)].layers;
    options.zeroGroup = spec.ranks[static_cast<size_t>(rank)].zeroGroup;
    options.planElementBytes = spec.planElementBytes;
    options.weightSeed = spec.weightSeed;
    auto created = StepExecutor::create(comm, spec.model, spec.batch, options);
    if (!created.ok())
      return fail(created.status());
    StepExecutor &x = **created;
    const RankProgram program = spec.programs[static_cast<size_t>(rank)];
    double stepSeconds = 0, lossSeconds = 0;
    bool checkFailed = false;
    for (int64_t step = 0; step < flags.steps; ++step) {
      const auto start = std::chrono::steady_clock::now();
      Status st = program(x);
      if (!st.ok())
        return fail(st);
      Result<double> partial = x.finishStep();
      if (!partial.ok())
        return fail(partial.status());
      double loss = *partial;
      // Ranks that finish early wait here for the slowest.
      const auto lossStart = std::chrono::steady_clock::now();
      st = comm.allReduce(world, &loss, 1).withContext("step loss");
      lossSeconds += seconds(lossStart);
      if (!st.ok())
        return fail(st);
      if (rank == 0) {
        std::printf("step %lld: loss %.7f\n", static_cast<long long>(step),
                    loss);
        std::fflush(stdout);
      }
      if (flags.check && step == 0) {
        st = check(x, loss, flags.tolerance, checkFailed);
        if (!st.ok())
          return fail(st);
      }
      st = x.optimizerStep();
      if (!st.ok())
        return fail(st);
      stepSeconds += seconds(start);
    }
    if (flags.profile) {
      constexpr int kFields = 6;
      const double mine[kFields] = {x.computeSeconds(), x.commSeconds(),
                                    stepSeconds,        x.computeCpuSeconds(),
                                    x.commCpuSeconds(), lossSeconds};
      std::vector<double> all(kFields * world.size());
      Status st = comm.allGather(world, mine, all.data(), kFields)
                      .withContext("profile gather");
      if (!st.ok())
        return fail(st);
      if (rank == 0) {
        const double n = static_cast<double>(flags.steps);
        for (size_t r = 0; r < world.size(); ++r) {
          const double *f = &all[kFields * r];
          std::printf("rank %zu: compute %.4f s, communication %.4f s, step "
                      "%.4f s (cpu: compute %.4f s, communication %.4f s; "
                      "loss sync %.4f s)\n",
                      r, f[0] / n, f[1] / n, f[2] / n, f[3] / n, f[4] / n,
                      f[5] / n);
        }
        std::fflush(stdout);
      }
    }
    Status st = host.finalize();
    if (!st.ok()) {
      std::fprintf(stderr, "%s: error on rank %d: %s\n", spec.name.c_str(),
                   rank, st.message().c_str());
      return 1;
    }
    return checkFailed ? 1 : 0;
  }

private:
  /// The world's gradient against referenceStep on rank 0; every rank
  /// learns the verdict.
  Status check(StepExecutor &x, double loss, double tolerance, bool &failed) {
    std::vector<float> whole(
        static_cast<size_t>(wholeParameterCount(spec.model)), 0.0f);
    PLXRT_TRY(x.contributeGradients(whole));
    PLXRT_TRY(
        comm.allReduce(world, whole.data(), static_cast<int64_t>(whole.size()))
            .withContext("gradient check"));
    double verdict = 0;
    if (comm.rank() == 0) {
      Result<ModelWeights<float>> weights = initWeights<float>(
          spec.model, wholeModel(spec.model), spec.weightSeed);
      if (!weights.ok())
        return weights.status().withContext("gradient check");
      Result<ReferenceCheck> c =
          compareWithReference(spec.model, *weights, spec.batch, loss, whole);
      if (!c.ok())
        return c.status();
      const bool ok = c->lossError <= tolerance && c->worstError <= tolerance;
      std::printf("check: loss %.7f vs single rank %.7f (relative %.2e); "
                  "gradients: worst %s relative %.2e (tolerance %g): %s\n",
                  c->loss, c->referenceLoss, c->lossError,
                  c->worstTensor.c_str(), c->worstError, tolerance,
                  ok ? "ok" : "FAILED");
      std::fflush(stdout);
      verdict = ok ? 0 : 1;
    }
    PLXRT_TRY(comm.allReduce(world, &verdict, 1).withContext("gradient check"));
    failed = verdict != 0;
    return Status::success();
  }

  const ProgramSpec &spec;
  const ProgramHost &host;
  Comm &comm;
  Group world;
};

} // namespace

int runProgramOn(const ProgramHost &host, int argc, char **argv,
                 const ProgramSpec &spec) {
  Comm &comm = host.comm;
  const bool first = comm.rank() == 0;
  auto usage = [&](const std::string &why) {
    if (first) {
      std::fprintf(stderr, "%s: %s\n", spec.name.c_str(), why.c_str());
      std::fprintf(stderr, kUsage, argc > 0 ? argv[0] : "program");
    }
    (void)host.finalize();
    return 2;
  };
  Flags flags;
  const std::string bad = parseFlags(argc, argv, flags);
  if (!bad.empty())
    return usage(bad);
  const size_t ranks = spec.ranks.size();
  if (spec.programs.size() != ranks) {
    if (first)
      std::fprintf(stderr,
                   "%s: the plan has %zu rank setups but %zu "
                   "programs\n",
                   spec.name.c_str(), ranks, spec.programs.size());
    (void)host.finalize();
    return 2;
  }
  for (size_t r = 0; r < ranks; ++r)
    if (!spec.programs[r]) {
      if (first)
        std::fprintf(stderr, "%s: rank %zu has no program\n", spec.name.c_str(),
                     r);
      (void)host.finalize();
      return 2;
    }
  if (static_cast<size_t>(comm.size()) != ranks) {
    if (first)
      std::fprintf(stderr,
                   "%s: this plan runs on %zu ranks; launched with %d (use "
                   "launch.sh)\n",
                   spec.name.c_str(), ranks, comm.size());
    (void)host.finalize();
    return 2;
  }
  if (first) {
    std::printf("%s: %zu ranks\n", spec.name.c_str(), ranks);
    std::fflush(stdout);
  }
  Runner runner(spec, host);
  return runner.run(flags);
}

} // namespace plexus::runtime
