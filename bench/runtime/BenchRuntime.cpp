//===- BenchRuntime.cpp - The CPU backend's step against one process ------===//
//
//   bench-runtime [--quick] [--steps N] [--plans flexsp,dpp,pp-dp]
//                 [--bin DIR] [--e2e DIR] [--mpirun PATH] [--per-rank]
//
// The training step of the CPU backend, run by the generated 8-rank
// programs of examples/tiny-cpu.plx (test/e2e: e2e-tiny-flexsp, -dpp,
// -pp-dp), against a plain single-process run of the same model and batch,
// side by side in one run. Per plan:
//
//  1. The plan's model, weight seed and batch come from its lowered module
//     (plx-translate --emit-json <e2e>/tiny-<plan>.mlir). This process,
//     pinned to one core, runs referenceStep and Adam on them N times (the
//     single process; the median step counts).
//  2. The plan's program runs under mpirun, 8 ranks, pinned to that same
//     core, then again on all cores. Each time twice: --steps 1 and
//     --steps 1+N, both with --profile. Their difference over N (start-up
//     left out) gives the wall seconds per step, the user and system CPU
//     seconds of all ranks (getrusage of the children), and each rank's
//     thread CPU seconds in compute and in communication calls; each rank's
//     compute, communication, loss-sync and step wall seconds are the mean
//     over all N + 2 steps of both.
//  3. Printed: tokens per second of the single process and of the 8 ranks
//     on all cores (throughput); the CPU seconds per step of both on the
//     one core (the work: what distribution adds, recompute, split work,
//     Ulysses layouts, runtime, MPI, all together), and that work split by
//     phase: the ranks' compute against the single process's step (the
//     compute overhead of distribution), their communication, and the rest
//     (runtime and MPI's polling outside communication calls); where the
//     ranks' wall time goes (compute, communication, the wait for the
//     slowest rank in the end-of-step loss sum, and the step beyond those:
//     the runtime overhead); and the losses of both, which agree when the
//     model and batch are the same.
//
// The 8 ranks outnumber this machine's cores, so wall seconds inside a rank
// include the other ranks' turns on its core; the notes printed at the end
// and bench/runtime/README.md say what each figure does and does not mean.
// Not a test: nothing is compared with a threshold; the exit status is
// non-zero only when something fails to run. --quick: N = 1 (default 2).
//
//===----------------------------------------------------------------------===//
#include "runtime/Executor.h"
#include "runtime/Model.h"
#include "runtime/Optimizer.h"

#include <nlohmann/json.hpp>

#include <sched.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

using namespace plexus::runtime;

#ifndef PLEXUS_BIN_DIR
#define PLEXUS_BIN_DIR "build/bin"
#endif
#ifndef PLEXUS_E2E_DIR
#define PLEXUS_E2E_DIR "build/test/e2e"
#endif
#ifndef PLEXUS_MPIEXEC
#define PLEXUS_MPIEXEC ""
#endif

namespace {

const int kRanks = 8;

struct PlanInfo {
  const char *name;
  const char *what;
};

// What each plan exercises (test/e2e/generate.sh).
const PlanInfo kPlans[] = {
    {"flexsp", "FlexSP: SP groups of 2, 2 and 4 ranks, ZeRO-3 over all 8"},
    {"dpp", "dynamic pipeline: 4 stages x 2-way Ulysses, split sequences, "
            "every layer recomputed, ZeRO-3 per stage"},
    {"pp-dp", "static 1F1B: 2 stages x 4 replicas, ZeRO-1 data-parallel sync"},
};

double wallNow() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double seconds(const timeval &t) {
  return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
}

/// User and system CPU seconds of this thread so far.
void threadCpuNow(double &user, double &sys) {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  user = seconds(ru.ru_utime);
  sys = seconds(ru.ru_stime);
}

/// User and system CPU seconds of the children waited for so far (and of
/// the descendants they waited for).
void childrenCpuNow(double &user, double &sys) {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  user = seconds(ru.ru_utime);
  sys = seconds(ru.ru_stime);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// What a child process printed (stdout and stderr together), its exit
/// status, its wall seconds and the CPU seconds of it and its descendants.
struct Run {
  std::string output;
  int status = -1;
  double wall = 0, user = 0, sys = 0;
};

/// Runs argv[0] (looked up in PATH) with the arguments, capturing its output.
bool spawn(const std::vector<std::string> &args, Run &run, std::string &error) {
  int fds[2];
  if (pipe(fds) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char *> argv;
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  double user0 = 0, sys0 = 0;
  childrenCpuNow(user0, sys0);
  const double wall0 = wallNow();
  pid_t pid = 0;
  const int rc =
      posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    error = "cannot start " + args[0] + ": " + std::strerror(rc);
    return false;
  }
  run.output.clear();
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0)
      run.output.append(buf, static_cast<size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.wall = wallNow() - wall0;
  childrenCpuNow(run.user, run.sys);
  run.user -= user0;
  run.sys -= sys0;
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

std::string tail(const std::string &text, size_t lines) {
  size_t pos = text.size();
  for (size_t n = 0; n <= lines && pos > 0; ++n) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) {
      pos = 0;
      break;
    }
  }
  return text.substr(pos);
}

/// The plan's model, weight seed and batch, from plx-translate --emit-json.
struct Plan {
  std::string name, what;
  ModelConfig model;
  uint64_t weightSeed = 0;
  StepBatch batch;
  int64_t tokens = 0, longest = 0;
  int ranks = 0;
};

bool readPlan(const std::string &translate, const std::string &mlir, Plan &plan,
              std::string &error) {
  Run run;
  if (!spawn({translate, "--emit-json", mlir}, run, error))
    return false;
  if (run.status != 0) {
    error = translate + " --emit-json " + mlir + " failed (exit " +
            std::to_string(run.status) + "):" + tail(run.output, 10);
    return false;
  }
  nlohmann::json j = nlohmann::json::parse(run.output, nullptr, false);
  if (j.is_discarded() || !j.contains("model") || !j.contains("batch") ||
      !j.contains("programs")) {
    error = "no model, batch and programs in the JSON of " + mlir;
    return false;
  }
  const nlohmann::json &m = j["model"], &b = j["batch"];
  ModelConfig &c = plan.model;
  c.layers = m.value("layers", int64_t{0});
  c.hidden = m.value("hidden", int64_t{0});
  c.heads = m.value("heads", int64_t{0});
  c.kvHeads = m.value("kv_heads", int64_t{0});
  c.headDim = m.value("head_dim", int64_t{0});
  c.ffn = m.value("ffn", int64_t{0});
  c.vocab = m.value("vocab", int64_t{0});
  c.mlp = m.value("mlp", std::string("swiglu")) == "gelu" ? MlpKind::GeLU
                                                          : MlpKind::SwiGLU;
  c.tiedEmbeddings = m.value("tied", false);
  plan.weightSeed = m.value("seed", uint64_t{0});
  plan.batch.seed = b.value("seed", uint64_t{0});
  plan.batch.lengths = b.value("lengths", std::vector<int64_t>{});
  for (int64_t len : plan.batch.lengths) {
    plan.tokens += len;
    plan.longest = std::max(plan.longest, len);
  }
  // plan.json lists each distinct program once with the ranks that run it.
  plan.ranks = 0;
  for (const auto &program : j["programs"])
    plan.ranks += static_cast<int>(program.value("ranks", std::vector<int64_t>{}).size());
  Status st = checkConfig(c);
  if (!st.ok()) {
    error = mlir + ": " + st.message();
    return false;
  }
  if (plan.batch.lengths.empty()) {
    error = mlir + ": the batch has no sequences";
    return false;
  }
  return true;
}

/// The single process: referenceStep then Adam, `steps` times.
struct Single {
  double step = 0, reference = 0, adam = 0; ///< median wall seconds
  double user = 0, sys = 0;                 ///< median CPU seconds of a step
  std::vector<double> losses;

  double cpu() const { return user + sys; }
};

bool runSingle(const Plan &plan, int steps, Single &out, std::string &error) {
  Result<ModelWeights<float>> weights =
      initWeights<float>(plan.model, wholeModel(plan.model), plan.weightSeed);
  if (!weights.ok()) {
    error = weights.message();
    return false;
  }
  const std::vector<std::vector<int32_t>> sequences =
      batchSequences(plan.batch, plan.model.vocab);
  Adam<float> adam;
  std::vector<double> wall, ref, opt, user, sys;
  for (int s = 0; s < steps; ++s) {
    ModelWeights<float> grads = zerosLike(*weights);
    double u0 = 0, s0 = 0, u1 = 0, s1 = 0;
    threadCpuNow(u0, s0);
    const double w0 = wallNow();
    Result<double> loss = referenceStep(plan.model, *weights, sequences, grads);
    const double w1 = wallNow();
    if (!loss.ok()) {
      error = loss.message();
      return false;
    }
    Status st = adam.step(*weights, grads);
    const double w2 = wallNow();
    threadCpuNow(u1, s1);
    if (!st.ok()) {
      error = st.message();
      return false;
    }
    out.losses.push_back(*loss);
    wall.push_back(w2 - w0);
    ref.push_back(w1 - w0);
    opt.push_back(w2 - w1);
    user.push_back(u1 - u0);
    sys.push_back(s1 - s0);
  }
  out.step = median(wall);
  out.reference = median(ref);
  out.adam = median(opt);
  out.user = median(user);
  out.sys = median(sys);
  return true;
}

/// One mpirun of a plan's program, parsed.
struct Profile {
  Run run;
  /// Per rank, mean per step: wall seconds, and (the current --profile
  /// format only) thread CPU seconds and the loss-sum wait.
  std::vector<double> compute, comm, step;
  std::vector<double> computeCpu, commCpu, lossSync;
  /// Every rank printed the CPU seconds and the loss wait. The earlier
  /// format (`rank R: compute X s, communication Y s, step Z s`) has wall
  /// seconds only, the Ulysses all-to-alls in compute and the loss wait in
  /// neither.
  bool split = true;
  std::vector<double> losses;
};

bool runProgramOnce(const std::vector<std::string> &mpirun,
                    const std::string &program, int steps, Profile &p,
                    std::string &error) {
  std::vector<std::string> args = mpirun;
  args.push_back(program);
  args.push_back("--steps");
  args.push_back(std::to_string(steps));
  args.push_back("--profile");
  if (!spawn(args, p.run, error))
    return false;
  std::string cmd;
  for (const std::string &a : args)
    cmd += (cmd.empty() ? "" : " ") + a;
  if (p.run.status != 0) {
    error = cmd + " failed (exit " + std::to_string(p.run.status) +
            "):" + tail(p.run.output, 12);
    return false;
  }
  p.compute.assign(kRanks, -1);
  p.comm.assign(kRanks, -1);
  p.step.assign(kRanks, -1);
  p.computeCpu.assign(kRanks, -1);
  p.commCpu.assign(kRanks, -1);
  p.lossSync.assign(kRanks, -1);
  std::istringstream in(p.run.output);
  std::string line;
  while (std::getline(in, line)) {
    int rank = -1;
    long long k = -1;
    double a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, loss = 0;
    const int n = std::sscanf(
        line.c_str(),
        "rank %d: compute %lf s, communication %lf s, step %lf s (cpu: "
        "compute %lf s, communication %lf s; loss sync %lf s)",
        &rank, &a, &b, &c, &d, &e, &f);
    if (n >= 4 && rank >= 0 && rank < kRanks) {
      const size_t r = static_cast<size_t>(rank);
      p.compute[r] = a;
      p.comm[r] = b;
      p.step[r] = c;
      if (n == 7) {
        p.computeCpu[r] = d;
        p.commCpu[r] = e;
        p.lossSync[r] = f;
      }
    } else if (std::sscanf(line.c_str(), "step %lld: loss %lf", &k, &loss) ==
               2) {
      p.losses.push_back(loss);
    }
  }
  for (int r = 0; r < kRanks; ++r)
    if (p.step[static_cast<size_t>(r)] < 0) {
      error = cmd + ": no --profile line for rank " + std::to_string(r) +
              " in its output:" + tail(p.run.output, 12);
      return false;
    }
  for (int r = 0; r < kRanks; ++r)
    p.split = p.split && p.lossSync[static_cast<size_t>(r)] >= 0;
  return true;
}

/// Two runs of a program: A (1 step) and B (1 + n steps).
struct Distributed {
  /// Per rank, wall seconds per step: the mean over the n + 2 steps of both
  /// runs (a rank's split between compute and communication varies from
  /// run to run under oversubscription; the first steps, which create the
  /// communicators and the ZeRO-3 chunks, cost about as much as the rest).
  /// The loss-sum wait likewise (zero when !split).
  std::vector<double> compute, comm, step, lossSync;
  /// Per step, B minus A over n, which leaves start-up out: the wall
  /// seconds of the whole mpirun, and the CPU seconds of all ranks (and
  /// mpirun).
  double wall = 0;
  double user = 0, sys = 0;
  /// Per rank, thread CPU seconds per step in compute and in communication
  /// calls, B minus A over n like the CPU seconds above, so that the rest
  /// (cpu() minus their sums) covers the same steps. The first step costs
  /// more CPU than the others (its communication most), so the mean over
  /// all steps would not match the getrusage difference.
  std::vector<double> computeCpu, commCpu;
  /// Both runs printed the CPU split and the loss wait.
  bool split = false;
  std::vector<double> losses;

  double cpu() const { return user + sys; }
  /// Wall seconds of the step outside compute, communication and the
  /// loss-sum wait: finishStep, optimizerStep, the executor's bookkeeping.
  double runtime(size_t r) const {
    return step[r] - compute[r] - comm[r] - lossSync[r];
  }
  double sum(const std::vector<double> &v) const {
    double s = 0;
    for (double x : v)
      s += x;
    return s;
  }
  /// The ranks' CPU seconds per step outside compute and communication
  /// calls: the runtime, MPI's polling in the loss sum, MPI's own threads
  /// and mpirun.
  double restCpu() const { return cpu() - sum(computeCpu) - sum(commCpu); }
  /// The last rank to arrive at the loss sum: the one that waited least
  /// there (without the split, the one with the least runtime, which then
  /// includes the wait).
  size_t lastRank() const {
    size_t best = 0;
    for (size_t r = 1; r < step.size(); ++r)
      if (split ? lossSync[r] < lossSync[best] : runtime(r) < runtime(best))
        best = r;
    return best;
  }
};

bool runDistributed(const std::vector<std::string> &mpirun,
                    const std::string &program, int steps, Distributed &d,
                    std::string &error) {
  Profile a, b;
  if (!runProgramOnce(mpirun, program, 1, a, error) ||
      !runProgramOnce(mpirun, program, 1 + steps, b, error))
    return false;
  const double n = steps;
  for (size_t r = 0; r < static_cast<size_t>(kRanks); ++r) {
    auto all = [&](const std::vector<double> &x, const std::vector<double> &y) {
      return (x[r] + y[r] * (n + 1)) / (n + 2);
    };
    auto diff = [&](const std::vector<double> &x,
                    const std::vector<double> &y) {
      return (y[r] * (n + 1) - x[r]) / n;
    };
    d.compute.push_back(all(a.compute, b.compute));
    d.comm.push_back(all(a.comm, b.comm));
    d.step.push_back(all(a.step, b.step));
    d.split = a.split && b.split;
    d.lossSync.push_back(d.split ? all(a.lossSync, b.lossSync) : 0.0);
    d.computeCpu.push_back(d.split ? diff(a.computeCpu, b.computeCpu) : 0.0);
    d.commCpu.push_back(d.split ? diff(a.commCpu, b.commCpu) : 0.0);
  }
  d.wall = (b.run.wall - a.run.wall) / n;
  d.user = (b.run.user - a.run.user) / n;
  d.sys = (b.run.sys - a.run.sys) / n;
  d.losses = b.losses;
  return true;
}

double mean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v)
    s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double maxOf(const std::vector<double> &v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

struct Row {
  Plan plan;
  Single single;       ///< on one core
  Distributed oneCore; ///< the 8 ranks on the same core
  Distributed allCores;
};

/// Pins this process (and what it starts from now on) to `set`.
bool pin(const cpu_set_t &set) {
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

int usage(const char *why) {
  std::fprintf(stderr,
               "bench-runtime: %s\nusage: bench-runtime [--quick] [--steps N] "
               "[--plans flexsp,dpp,pp-dp] [--bin DIR] [--e2e DIR] "
               "[--mpirun PATH] [--per-rank]\n",
               why);
  return 2;
}

std::vector<std::string> splitList(const std::string &list) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos <= list.size();) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos)
      comma = list.size();
    if (comma > pos)
      out.push_back(list.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

bool isExecutable(const std::string &path) {
  return access(path.c_str(), X_OK) == 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string bin = PLEXUS_BIN_DIR, e2e = PLEXUS_E2E_DIR;
  std::string mpiexec = PLEXUS_MPIEXEC;
  std::vector<std::string> plans = {"flexsp", "dpp", "pp-dp"};
  int steps = 2;
  bool quick = false, stepsGiven = false, perRank = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string v;
    auto value = [&]() {
      if (i + 1 >= argc)
        return false;
      v = argv[++i];
      return true;
    };
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--per-rank") {
      perRank = true;
    } else if (arg == "--bin" || arg == "--e2e" || arg == "--mpirun" ||
               arg == "--plans" || arg == "--steps") {
      if (!value())
        return usage((arg + " needs a value").c_str());
      if (arg == "--bin") {
        bin = v;
      } else if (arg == "--e2e") {
        e2e = v;
      } else if (arg == "--mpirun") {
        mpiexec = v;
      } else if (arg == "--plans") {
        plans = splitList(v);
      } else {
        char *end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end || n < 1 || n > 100)
          return usage(("--steps needs an integer in [1, 100], got '" + v + "'")
                           .c_str());
        steps = static_cast<int>(n);
        stepsGiven = true;
      }
    } else {
      return usage(("unknown argument '" + arg + "'").c_str());
    }
  }
  if (quick && !stepsGiven)
    steps = 1;
  if (plans.empty())
    return usage("--plans lists no plan");
  for (const std::string &p : plans) {
    bool known = false;
    for (const PlanInfo &info : kPlans)
      known |= p == info.name;
    if (!known)
      return usage(("unknown plan '" + p + "' (flexsp, dpp, pp-dp)").c_str());
  }
  if (mpiexec.empty()) {
    std::printf(
        "bench-runtime: skipped: MPI was not found when the build was "
        "configured, so the\ngenerated programs are not built (--mpirun "
        "PATH and --bin DIR run it anyway)\n");
    return 0;
  }

  // Open MPI starts more ranks than cores only when told, and as root only
  // when told (cmake/PlexusMpi.cmake); it would bind more than two ranks to
  // a socket, undoing the pinning of the one-core runs.
  std::vector<std::string> mpirun = {mpiexec, "-np", std::to_string(kRanks)};
  {
    Run version;
    std::string ignored;
    if (spawn({mpiexec, "--version"}, version, ignored) &&
        (version.output.find("Open MPI") != std::string::npos ||
         version.output.find("OpenRTE") != std::string::npos)) {
      mpirun.push_back("--oversubscribe");
      if (geteuid() == 0)
        mpirun.push_back("--allow-run-as-root");
      mpirun.push_back("--bind-to");
      mpirun.push_back("none");
    }
  }
  std::string mpirunText;
  for (const std::string &a : mpirun)
    mpirunText += (mpirunText.empty() ? "" : " ") + a;

  cpu_set_t allowed, one;
  CPU_ZERO(&allowed);
  CPU_ZERO(&one);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    std::fprintf(stderr, "bench-runtime: sched_getaffinity: %s\n",
                 std::strerror(errno));
    return 1;
  }
  int core = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed))
      core = c;
  CPU_SET(core, &one);
  const int usable = CPU_COUNT(&allowed);
  const unsigned threads = std::thread::hardware_concurrency();

  std::printf("bench-runtime: the CPU backend's training step: the generated "
              "%d-rank programs of\nexamples/tiny-cpu.plx (test/e2e) against "
              "one process running the same model and batch\n\n",
              kRanks);
  std::printf("machine: %u hardware threads (std::thread::hardware_concurrency)"
              ", %d usable here;\n  the plans run %d ranks",
              threads, usable, kRanks);
  if (usable < kRanks)
    std::printf(", %.1f to a core: OVERSUBSCRIBED. Wall seconds inside a rank "
                "then\n  include the other ranks' turns on its core; they are "
                "no measure of an 8-core run.\n",
                static_cast<double>(kRanks) / usable);
  else
    std::printf(".\n");
  std::printf("timing: the single process: median of %d step%s "
              "(referenceStep + Adam) in this\n  process, pinned to core %d. "
              "The 8 ranks, once pinned to core %d and once on all\n  %d "
              "cores: `<mpirun> <program> --steps S --profile` with S = 1 and "
              "S = %d.\n  CPU and wall per step: their difference over %d "
              "step%s (start-up left out);\n  the ranks' --profile seconds: "
              "the mean over all %d steps. <mpirun> =\n  %s\n",
              steps, steps == 1 ? "" : "s", core, core, usable, 1 + steps,
              steps, steps == 1 ? "" : "s", 2 + steps, mpirunText.c_str());

  std::vector<Row> rows;
  const std::string translate = bin + "/plx-translate";
  for (const std::string &name : plans) {
    Row row;
    row.plan.name = name;
    for (const PlanInfo &info : kPlans)
      if (name == info.name)
        row.plan.what = info.what;
    const std::string mlir = e2e + "/tiny-" + name + ".mlir";
    const std::string program = bin + "/e2e-tiny-" + name;
    std::string error;
    if (!isExecutable(translate) || !isExecutable(program) ||
        access(mlir.c_str(), R_OK) != 0) {
      std::fprintf(stderr,
                   "bench-runtime: %s needs %s, %s and %s (build the target "
                   "e2e-tiny-%s; --bin and --e2e say where they are)\n",
                   name.c_str(), translate.c_str(), program.c_str(),
                   mlir.c_str(), name.c_str());
      return 1;
    }
    if (!readPlan(translate, mlir, row.plan, error)) {
      std::fprintf(stderr, "bench-runtime: %s\n", error.c_str());
      return 1;
    }
    if (row.plan.ranks != kRanks) {
      std::fprintf(stderr, "bench-runtime: %s has %d ranks, expected %d\n",
                   mlir.c_str(), row.plan.ranks, kRanks);
      return 1;
    }
    if (rows.empty()) {
      const ModelConfig &c = row.plan.model;
      std::printf(
          "model: %lld layers, hidden %lld, %lld heads, ffn %lld, "
          "vocab %lld, %s, %.2f M parameters, fp32\n",
          static_cast<long long>(c.layers), static_cast<long long>(c.hidden),
          static_cast<long long>(c.heads), static_cast<long long>(c.ffn),
          static_cast<long long>(c.vocab),
          c.mlp == MlpKind::SwiGLU ? "swiglu" : "gelu",
          static_cast<double>(wholeParameterCount(c)) / 1e6);
    }
    std::printf("%-7s %s\n        batch: %zu sequences, %lld tokens (longest "
                "%lld)\n",
                (name + ":").c_str(), row.plan.what.c_str(),
                row.plan.batch.lengths.size(),
                static_cast<long long>(row.plan.tokens),
                static_cast<long long>(row.plan.longest));
    std::fflush(stdout);
    if (!pin(one)) {
      std::fprintf(stderr, "bench-runtime: sched_setaffinity: %s\n",
                   std::strerror(errno));
      return 1;
    }
    if (!runSingle(row.plan, steps, row.single, error)) {
      std::fprintf(stderr, "bench-runtime: %s, single process: %s\n",
                   name.c_str(), error.c_str());
      return 1;
    }
    const bool ok = runDistributed(mpirun, program, steps, row.oneCore, error);
    if (!pin(allowed)) {
      std::fprintf(stderr, "bench-runtime: sched_setaffinity: %s\n",
                   std::strerror(errno));
      return 1;
    }
    if (!ok || !runDistributed(mpirun, program, steps, row.allCores, error)) {
      std::fprintf(stderr, "bench-runtime: %s\n", error.c_str());
      return 1;
    }
    rows.push_back(std::move(row));
  }

  std::printf("\nThroughput: the single process (one core) against the 8 "
              "ranks on all %d cores\n",
              usable);
  std::printf("%-7s | %-24s | %-24s | %s\n", "", "1 process", "8 ranks",
              "8 ranks /");
  std::printf("%-7s | %7s %10s %5s | %7s %10s %5s | %s\n", "plan", "s/step",
              "tokens/s", "cores", "s/step", "tokens/s", "cores", "1 process");
  for (const Row &r : rows) {
    const double tok = static_cast<double>(r.plan.tokens);
    const double stepD = maxOf(r.allCores.step);
    std::printf("%-7s | %7.3f %10.0f %5.2f | %7.3f %10.0f %5.2f | %8.2fx\n",
                r.plan.name.c_str(), r.single.step, tok / r.single.step,
                r.single.cpu() / r.single.step, stepD, tok / stepD,
                r.allCores.cpu() / r.allCores.wall, r.single.step / stepD);
  }

  std::printf("\nWork: both on core %d alone, where the 8 ranks' CPU seconds "
              "are their work\n",
              core);
  std::printf("%-7s | %-22s | %-30s | %s\n", "", "1 process, per step",
              "8 ranks, per step", "8 ranks / 1 process");
  std::printf("%-7s | %6s %7s %7s | %6s %7s %7s %7s | %7s %7s\n", "plan",
              "wall", "CPU", "(Adam)", "wall", "CPU", "(user", "sys)", "CPU",
              "user");
  for (const Row &r : rows) {
    const Distributed &d = r.oneCore;
    std::printf("%-7s | %6.3f %7.3f %7.3f | %6.3f %7.3f %7.3f %7.3f | %6.2fx "
                "%6.2fx\n",
                r.plan.name.c_str(), r.single.step, r.single.cpu(),
                r.single.adam, d.wall, d.cpu(), d.user, d.sys,
                d.cpu() / r.single.cpu(), d.user / r.single.user);
  }

  bool split = true;
  for (const Row &r : rows)
    split = split && r.oneCore.split && r.allCores.split;

  std::printf("\nThe work by phase: the same runs on core %d, CPU seconds per "
              "step summed over the\n8 ranks (their threads' CPU clock in "
              "compute and communication calls); rest = the\nranks' CPU "
              "above - compute - comm: runtime + MPI polling outside "
              "communication\n",
              core);
  if (split) {
    std::printf("%-7s | %-7s | %-31s | %s\n", "", "1 proc.",
                "8 ranks, per step", "8 ranks / 1 process");
    std::printf("%-7s | %7s | %7s %7s %7s %7s | %7s %6s %6s %7s\n", "plan",
                "CPU", "compute", "comm", "rest", "CPU", "compute", "comm",
                "rest", "CPU");
    for (const Row &r : rows) {
      const Distributed &d = r.oneCore;
      const double one = r.single.cpu();
      const double compute = d.sum(d.computeCpu), comm = d.sum(d.commCpu);
      std::printf("%-7s | %7.3f | %7.3f %7.3f %7.3f %7.3f | %6.2fx %5.2fx "
                  "%5.2fx %6.2fx\n",
                  r.plan.name.c_str(), one, compute, comm, d.restCpu(), d.cpu(),
                  compute / one, comm / one, d.restCpu() / one, d.cpu() / one);
    }
  } else {
    std::printf("  not printed: the programs' --profile has wall seconds only "
                "(rebuild them)\n");
  }

  std::printf(
      "\nWhere the 8 ranks' step goes: wall seconds per step, mean "
      "over the ranks;\nruntime = step - compute - comm - loss "
      "(loss: the wait in the end-of-step loss\nsum, where ranks "
      "wait for the slowest); 'last' = the last rank to arrive there\n");
  if (!split)
    std::printf("(the programs' --profile has no loss wait: runtime includes "
                "it, and 'last' is the\nrank with the least runtime)\n");
  std::printf("%-7s %5s | %7s %8s %7s %7s %8s %7s | %s\n", "plan", "cores",
              "step", "compute", "comm", "loss", "runtime", "(last)",
              "runtime/step: mean, last");
  for (const Row &r : rows)
    for (const Distributed *d : {&r.allCores, &r.oneCore}) {
      std::vector<double> runtime;
      for (size_t i = 0; i < d->step.size(); ++i)
        runtime.push_back(d->runtime(i));
      const double step = mean(d->step);
      const size_t lastRank = d->lastRank();
      const double last = runtime[lastRank];
      const double lastStep = d->step[lastRank];
      std::printf("%-7s %5d | %7.3f %8.3f %7.3f %7.3f %8.3f %7.3f | %5.1f%%, "
                  "%5.1f%%\n",
                  r.plan.name.c_str(), d == &r.oneCore ? 1 : usable, step,
                  mean(d->compute), mean(d->comm), mean(d->lossSync),
                  mean(runtime), last, 100 * mean(runtime) / step,
                  100 * last / lastStep);
    }

  if (perRank)
    for (const Row &r : rows)
      for (const Distributed *d : {&r.allCores, &r.oneCore}) {
        std::printf("\n%s on %d core%s, per rank, per step: wall seconds "
                    "(compute, comm, loss,\nruntime, step) | thread CPU "
                    "seconds (compute, comm: the difference of the\ntwo "
                    "runs; noisy on all cores, where MPI's polling takes any "
                    "idle core)\n",
                    r.plan.name.c_str(), d == &r.oneCore ? 1 : usable,
                    d == &r.oneCore ? "" : "s");
        for (size_t i = 0; i < d->step.size(); ++i) {
          std::printf("  rank %zu: %7.3f %7.3f %7.3f %7.3f %7.3f", i,
                      d->compute[i], d->comm[i], d->lossSync[i], d->runtime(i),
                      d->step[i]);
          if (d->split)
            std::printf(" | cpu %7.3f %7.3f", d->computeCpu[i], d->commCpu[i]);
          std::printf("\n");
        }
      }

  std::printf("\nLosses: the same model, weights and batch (Adam between "
              "steps)\n");
  for (const Row &r : rows) {
    const std::vector<double> &dist = r.allCores.losses;
    const size_t n = std::min(r.single.losses.size(), dist.size());
    double worst = 0;
    for (size_t i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(dist[i] - r.single.losses[i]) /
                                  std::fabs(r.single.losses[i]));
    std::printf("%-7s step 0: 1 process %.7f, 8 ranks %.7f; worst relative "
                "difference over %zu step%s %.1e\n",
                r.plan.name.c_str(),
                r.single.losses.empty() ? 0.0 : r.single.losses[0],
                dist.empty() ? 0.0 : dist[0], n, n == 1 ? "" : "s", worst);
  }

  std::printf(
      "\nNotes\n"
      "- The single process is single-threaded. 'cores' = CPU seconds "
      "(getrusage: of this\n"
      "  thread, or of all ranks) over wall seconds: what the run got, other "
      "work on the\n"
      "  machine taking the rest. Throughput depends on that share; the "
      "work does not.\n"
      "- Work: on one core the ranks take turns, and their CPU seconds are "
      "the single\n"
      "  process's work plus all that distribution adds: split work (smaller "
      "matmuls),\n"
      "  recompute, the Ulysses layouts, the runtime, MPI's copies, and its "
      "polling\n"
      "  while a rank waits (Open MPI yields the core when oversubscribed; "
      "that is most\n"
      "  of 'sys'). 'user' leaves the yields out: the closer figure for the "
      "compute.\n"
      "  On all cores polling also burns any idle core: CPU there is not "
      "work.\n"
      "- Work by phase (thread CPU seconds, so other ranks' turns on the "
      "core do not count):\n"
      "  compute: forward, recompute and backward calls, the Ulysses "
      "all-to-alls inside\n"
      "  them left out: the model's compute plus what distribution adds to "
      "it (split\n"
      "  matmuls, recompute, sliced attention, the Ulysses layouts). comm: "
      "send/recv, the\n"
      "  ZeRO collectives and the Ulysses all-to-alls: MPI's copies, its "
      "polling while a\n"
      "  rank waits for peers, and the Adam of updateAndGatherParams "
      "(ZeRO-1/2). rest:\n"
      "  finishStep, optimizerStep (Adam under ZeRO-3), the executor's "
      "bookkeeping, MPI's\n"
      "  polling in the loss sum, MPI's own threads and mpirun. The single "
      "process's CPU\n"
      "  includes its Adam (about 1%% of it). The ranks' figures are the "
      "difference of\n"
      "  the two runs like the getrusage ones, so start-up is left out of "
      "all three; rest,\n"
      "  a difference of differences, is noise within a few hundredths of a "
      "second (the\n"
      "  start-up's CPU varies from run to run) and can come out below "
      "zero.\n"
      "- Wall: compute and comm as above (the Ulysses all-to-alls, and any "
      "wait in them,\n"
      "  in comm; comm includes pipeline bubbles and imbalance). loss: the "
      "end-of-step loss\n"
      "  all-reduce, where ranks that finish early wait for the slowest: "
      "waiting, not work.\n"
      "  runtime: the rest of the step, finishStep, optimizerStep and the "
      "executor's\n"
      "  bookkeeping. Under oversubscription a rank's wall seconds include "
      "the other\n"
      "  ranks' turns on its core (the last rank to arrive at the loss sum "
      "waits least,\n"
      "  so its runtime is the least inflated); the CPU split above does "
      "not.\n");
  return 0;
}
