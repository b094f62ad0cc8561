//===- BenchScale.cpp - plxc's time and memory against the chip count -----===//
//
//   bench-scale [--plxc PATH] [--quick] [--no-codegen] [--limit-s S]
//               [--limit-gb G] [--keep DIR]
//
// Runs plxc, one child process per spec, on three families of train jobs
// and prints per size the wall seconds, the peak resident memory (the
// child's ru_maxrss from wait4) and whether plxc printed a predicted step
// time, then the growth per doubling (time and memory ratios of
// consecutive sizes that double) and each of the scale targets with its
// measured figure:
//
//  - llama8b-static: Llama-3-8B, 8 H100 a node on a 3-tier fat tree (the
//    smallest power-of-two radix that attaches every chip), Ulysses SP 8
//    with ZeRO-3, one sequence per chip (lognormal mu 8, sigma 1.2,
//    clamped at 32K); 64 to 4,096 chips (--quick: to 256). Targets: 1,024
//    chips under 5 s, 4,096 under 10 s and 2 GB.
//  - long-70b: Llama-3-70B, 128K clamp, batch 256, sp adaptive and pp
//    dynamic (FlexSP and DPP), 8 H200 a node; 32 to 128 chips (--quick:
//    32). Target: 128 chips under 10 s.
//  - railx-200k: examples/railx-200k.plx (405B, 200,704 B200 chips), run
//    from the source tree (skipped with --quick). Target: planned and
//    predicted under 60 s and 4 GB.
//
// Then (not with --quick or --no-codegen) the generated programs: plxc -o
// and the build launch.sh runs (mpicxx -O2; MPIRUN=true so that the
// script builds and starts nothing), each timed the same way, and the
// sizes of program.cpp, rt.mlir and plan.json:
//
//  - dpp64-1.8b: a 1.8B model (24 layers, hidden 2048) on 64 H100, Ulysses
//    SP 8 and a dynamic pipeline of 8 stages, lognormal mu 9.5 sigma 1.0
//    clamped at 128K, batch 64, with a 2 GB memory_limit so that DPP is
//    the plan written (at 80 GB the static SP plan is faster and is the one
//    written). Targets: the plan is DPP, program.cpp under 1 MB and built
//    under 60 s.
//  - llama8b-static at 1,024 chips. Target: the program builds.
//
// Each child runs under a wall limit (--limit-s, default 600) and an
// address-space limit (--limit-gb, default 12): a size that runs past
// either is reported as such, not waited for. Specs are written to a
// temporary directory (--keep DIR: into DIR, left there). Not a test:
// nothing fails on a missed target; the exit status is non-zero only when
// plxc cannot be started.
//
//===----------------------------------------------------------------------===//
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Run {
  std::string family;
  int64_t chips = 0;
  std::string spec; ///< path
  double wallSeconds = 0;
  double peakGb = 0;
  std::string status; ///< "predicted", "not predicted", "timed out", ...
};

struct Target {
  std::string family;
  int64_t chips;
  double seconds;
  double gb; ///< 0: no memory target
};

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The smallest power-of-two radix whose 3-tier fat tree (k^3 / 4
/// endpoints) attaches `chips`.
int64_t fatTreeRadix(int64_t chips) {
  int64_t k = 4;
  while (k * k * k / 4 < chips)
    k *= 2;
  return k;
}

std::string llama8bSpec(int64_t chips) {
  std::ostringstream os;
  os << "// bench-scale: Llama-3-8B, static Ulysses SP 8, " << chips
     << " H100.\n"
     << "model llama3_8b {\n"
     << "  layers = 32; hidden = 4096; heads = 32; kv_heads = 8; ffn = 14336;\n"
     << "  vocab = 128256;\n}\n"
     << "dataset docs {\n"
     << "  lengths = lognormal(mu = 8.0, sigma = 1.2);\n"
     << "  clamp = 32Ki; overlong = truncate; padding = 16;\n}\n"
     << "fabric h100 {\n  chip = H100; nodes = " << chips / 8
     << "; chips_per_node = 8;\n"
     << "  topology = fat_tree { radix = " << fatTreeRadix(chips)
     << "; tiers = 3; link = 400 Gb/s; };\n}\n"
     << "train llama8b_static {\n"
     << "  model = llama3_8b; data = docs; fabric = h100;\n"
     << "  batch = " << chips << "; steps = 1; seed = 7;\n"
     << "  strategy { sp = 8; zero = 3; checkpoint = selective; }\n}\n";
  return os.str();
}

std::string long70bSpec(int64_t chips) {
  std::ostringstream os;
  os << "// bench-scale: Llama-3-70B, 128K clamp, sp adaptive, pp dynamic, "
     << chips << " H200.\n"
     << "model llama3_70b {\n"
     << "  layers = 80; hidden = 8192; heads = 64; kv_heads = 8; ffn = 28672;\n"
     << "  vocab = 128256;\n}\n"
     << "dataset long_docs {\n"
     << "  lengths = lognormal(mu = 8.5, sigma = 1.3);\n"
     << "  clamp = 128Ki; padding = 64;\n}\n"
     << "fabric h200 {\n  chip = H200; nodes = " << chips / 8
     << "; chips_per_node = 8;\n"
     << "  topology = fat_tree { radix = " << fatTreeRadix(chips)
     << "; tiers = 3; link = 400 Gb/s; };\n}\n"
     << "train long70b {\n"
     << "  model = llama3_70b; data = long_docs; fabric = h200;\n"
     << "  batch = 256; steps = 1; seed = 5;\n"
     << "  strategy { sp = adaptive; pp = dynamic; checkpoint = adaptive; "
        "zero = 3; }\n}\n";
  return os.str();
}

/// Runs argv (argv[0] a path) with the limits, its output in `out`; fills
/// the wall time and peak memory. False when it cannot be started.
struct Child {
  double wallSeconds = 0, peakGb = 0;
  bool timedOut = false, signalled = false;
  int exitCode = -1;
  std::string output;
};
bool runChild(const std::vector<std::string> &argv, const std::string &out,
              double limitSeconds, double limitGb, Child &child,
              const char *envName = nullptr, const char *envValue = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0)
    return false;
  if (pid == 0) {
    struct rlimit as;
    as.rlim_cur = as.rlim_max =
        static_cast<rlim_t>(limitGb * 1024.0 * 1024.0 * 1024.0);
    setrlimit(RLIMIT_AS, &as);
    if (envName)
      setenv(envName, envValue, 1);
    int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  std::memset(&usage, 0, sizeof usage);
  for (;;) {
    pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid)
      break;
    const double elapsed = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start)
                               .count();
    if (!child.timedOut && elapsed > limitSeconds) {
      kill(pid, SIGKILL);
      child.timedOut = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  child.wallSeconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  // ru_maxrss of wait4 is the child's and its waited-for descendants'
  // largest (the compiler proper under mpicxx).
  child.peakGb = static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);
  child.signalled = WIFSIGNALED(status);
  child.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  child.output = readFile(out);
  return !(child.exitCode == 127 && !child.timedOut);
}

/// Runs plxc on run.spec with the limits; fills the measurements.
bool measure(const std::string &plxc, Run &run, const std::string &dir,
             double limitSeconds, double limitGb) {
  const std::string out = dir + "/" + run.family + "-" +
                          std::to_string(run.chips) + ".out";
  Child child;
  if (!runChild({plxc, run.spec}, out, limitSeconds, limitGb, child))
    return false;
  run.wallSeconds = child.wallSeconds;
  run.peakGb = child.peakGb;
  const std::string &text = child.output;
  if (child.timedOut)
    run.status = "over " + std::to_string(static_cast<int>(limitSeconds)) +
                 " s (killed)";
  else if (child.signalled ||
           text.find("std::bad_alloc") != std::string::npos ||
           text.find("out of memory") != std::string::npos)
    run.status = "failed (signal or out of memory; limit " +
                 std::to_string(static_cast<int>(limitGb)) + " GB)";
  else if (text.find("\n  step     predicted ") != std::string::npos)
    run.status = "predicted";
  else if (text.find("not planned") != std::string::npos)
    run.status = "not planned";
  else
    run.status = "no prediction (exit " + std::to_string(child.exitCode) + ")";
  return true;
}

std::string dpp64Spec() {
  return "// bench-scale: a 1.8B model, Ulysses SP 8 x a dynamic pipeline, "
         "64 H100.\n"
         "model m18 {\n"
         "  layers = 24; hidden = 2048; heads = 16; ffn = 8Ki; vocab = "
         "32Ki;\n}\n"
         "dataset docs {\n"
         "  lengths = lognormal(mu = 9.5, sigma = 1.0);\n"
         "  clamp = 128Ki; padding = 64;\n}\n"
         "fabric h100x64 {\n  chip = H100; nodes = 8; chips_per_node = 8;\n"
         "  topology = fat_tree { radix = 8; tiers = 3; link = 400 Gb/s; "
         "};\n}\n"
         "train t {\n"
         "  model = m18; data = docs; fabric = h100x64;\n"
         "  batch = 64; seed = 1;\n"
         "  strategy { sp = 8; pp = dynamic; checkpoint = adaptive; zero = 3; "
         "memory_limit = 2 GB; }\n}\n";
}

long long fileBytes(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size)
                                      : -1;
}

/// plxc -o on `spec`, then launch.sh's build; prints one line. False when
/// a tool cannot be started.
struct CodegenRun {
  std::string name, strategy;
  int64_t chips = 0;
  Child plxc, build;
  long long programBytes = -1, rtBytes = -1, jsonBytes = -1;
  bool built = false;
};
bool measureCodegen(const std::string &plxc, const std::string &spec,
                    const std::string &outDir, double limitSeconds,
                    double limitGb, CodegenRun &run) {
  // A directory kept from an earlier run (--keep) must not be measured.
  std::error_code ignored;
  std::filesystem::remove_all(outDir, ignored);
  if (!runChild({plxc, spec, "-o", outDir}, outDir + ".plxc.out",
                limitSeconds, limitGb, run.plxc))
    return false;
  run.programBytes = fileBytes(outDir + "/program.cpp");
  run.rtBytes = fileBytes(outDir + "/rt.mlir");
  run.jsonBytes = fileBytes(outDir + "/plan.json");
  const std::string report = readFile(outDir + "/report.json");
  const size_t at = report.find("\"strategy\": \"");
  if (at != std::string::npos) {
    const size_t from = at + 13, to = report.find('"', from);
    run.strategy = report.substr(from, to - from);
  }
  if (run.programBytes < 0)
    return true;
  if (!runChild({"/bin/sh", outDir + "/launch.sh"}, outDir + ".build.out",
                limitSeconds, limitGb, run.build, "MPIRUN", "true"))
    return false;
  run.built = run.build.exitCode == 0 && !run.build.timedOut &&
              fileBytes(outDir + "/program") > 0;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string plxc, keep;
  bool quick = false, codegen = true;
  double limitSeconds = 600, limitGb = 12;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a == "--no-codegen")
      codegen = false;
    else if (a == "--plxc" && i + 1 < argc)
      plxc = argv[++i];
    else if (a == "--keep" && i + 1 < argc)
      keep = argv[++i];
    else if (a == "--limit-s" && i + 1 < argc)
      limitSeconds = std::atof(argv[++i]);
    else if (a == "--limit-gb" && i + 1 < argc)
      limitGb = std::atof(argv[++i]);
    else {
      std::fprintf(stderr,
                   "usage: bench-scale [--plxc PATH] [--quick] [--no-codegen] "
                   "[--limit-s S] [--limit-gb G] [--keep DIR]\n");
      return 2;
    }
  }
  if (plxc.empty()) {
    // Beside this binary (build/bin).
    std::string self = argv[0];
    size_t slash = self.rfind('/');
    plxc = (slash == std::string::npos ? std::string(".")
                                       : self.substr(0, slash)) +
           "/plxc";
  }
  std::string dir = keep;
  if (dir.empty()) {
    char tmpl[] = "/tmp/bench-scale-XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::perror("bench-scale: mkdtemp");
      return 1;
    }
    dir = tmpl;
  } else {
    mkdir(dir.c_str(), 0755);
  }

  std::vector<Run> runs;
  auto add = [&](const std::string &family, int64_t chips,
                 const std::string &text) {
    Run r;
    r.family = family;
    r.chips = chips;
    r.spec = dir + "/" + family + "-" + std::to_string(chips) + ".plx";
    std::ofstream(r.spec) << text;
    runs.push_back(r);
  };
  for (int64_t chips = 64; chips <= (quick ? 256 : 4096); chips *= 2)
    add("llama8b-static", chips, llama8bSpec(chips));
  for (int64_t chips = 32; chips <= (quick ? 32 : 128); chips *= 2)
    add("long-70b", chips, long70bSpec(chips));
  if (!quick) {
    Run r;
    r.family = "railx-200k";
    r.chips = 200704;
    r.spec = std::string(PLEXUS_SOURCE_DIR) + "/examples/railx-200k.plx";
    runs.push_back(r);
  }

  std::printf("bench-scale: plxc %s, limits %.0f s and %.0f GB a run, specs "
              "in %s\n\n",
              plxc.c_str(), limitSeconds, limitGb, dir.c_str());
  std::printf("%-16s %8s %10s %10s %9s %9s  %s\n", "family", "chips",
              "wall s", "peak GB", "t x/2x", "mem x/2x", "status");
  for (size_t i = 0; i < runs.size(); ++i) {
    Run &r = runs[i];
    if (!measure(plxc, r, dir, limitSeconds, limitGb)) {
      std::fprintf(stderr, "bench-scale: cannot run %s\n", plxc.c_str());
      return 1;
    }
    char timeRatio[32] = "", memRatio[32] = "";
    if (i > 0 && runs[i - 1].family == r.family &&
        runs[i - 1].chips * 2 == r.chips && runs[i - 1].wallSeconds > 0) {
      std::snprintf(timeRatio, sizeof timeRatio, "%.2f",
                    r.wallSeconds / runs[i - 1].wallSeconds);
      std::snprintf(memRatio, sizeof memRatio, "%.2f",
                    r.peakGb / runs[i - 1].peakGb);
    }
    std::printf("%-16s %8lld %10.2f %10.3f %9s %9s  %s\n", r.family.c_str(),
                static_cast<long long>(r.chips), r.wallSeconds, r.peakGb,
                timeRatio, memRatio, r.status.c_str());
    std::fflush(stdout);
  }

  const std::vector<Target> targets = {{"long-70b", 128, 10, 0},
                                       {"llama8b-static", 1024, 5, 0},
                                       {"llama8b-static", 4096, 10, 2},
                                       {"railx-200k", 200704, 60, 4}};
  std::printf("\ntargets (issue 16): planned and predicted within the time "
              "and memory\n");
  for (const Target &t : targets) {
    const Run *found = nullptr;
    for (const Run &r : runs)
      if (r.family == t.family && r.chips == t.chips)
        found = &r;
    char goal[64];
    if (t.gb > 0)
      std::snprintf(goal, sizeof goal, "< %.0f s, < %.0f GB", t.seconds, t.gb);
    else
      std::snprintf(goal, sizeof goal, "< %.0f s", t.seconds);
    if (!found) {
      std::printf("  %-16s %8lld  %-18s  not run (--quick)\n", t.family.c_str(),
                  static_cast<long long>(t.chips), goal);
      continue;
    }
    const bool met = found->status == "predicted" &&
                     found->wallSeconds < t.seconds &&
                     (t.gb <= 0 || found->peakGb < t.gb);
    std::printf("  %-16s %8lld  %-18s  %.2f s, %.3f GB, %s: %s\n",
                t.family.c_str(), static_cast<long long>(t.chips), goal,
                found->wallSeconds, found->peakGb, found->status.c_str(),
                met ? "met" : "NOT MET");
  }
  if (quick || !codegen)
    return 0;

  // The generated programs.
  std::vector<CodegenRun> cg(2);
  cg[0].name = "dpp64-1.8b";
  cg[0].chips = 64;
  const std::string dppSpec = dir + "/dpp64-1.8b.plx";
  std::ofstream(dppSpec) << dpp64Spec();
  cg[1].name = "llama8b-static";
  cg[1].chips = 1024;
  const std::string l8Spec = dir + "/llama8b-static-1024.plx";
  std::printf("\ngenerated programs (plxc -o, then launch.sh's build at "
              "-O2)\n");
  std::printf("%-16s %6s %-22s %8s %9s %9s %9s %8s %8s  %s\n", "family",
              "chips", "plan", "plxc s", "cpp MB", "rt MB", "json MB",
              "build s", "build GB", "status");
  for (CodegenRun &run : cg) {
    const std::string spec = run.chips == 64 ? dppSpec : l8Spec;
    const std::string outDir =
        dir + "/" + run.name + "-" + std::to_string(run.chips) + ".out.d";
    if (!measureCodegen(plxc, spec, outDir, limitSeconds, limitGb, run)) {
      std::fprintf(stderr, "bench-scale: cannot run plxc or sh\n");
      return 1;
    }
    std::printf("%-16s %6lld %-22s %8.2f %9.3f %9.3f %9.3f %8.2f %8.3f  %s\n",
                run.name.c_str(), static_cast<long long>(run.chips),
                run.strategy.empty() ? "?" : run.strategy.c_str(),
                run.plxc.wallSeconds, run.programBytes / 1e6,
                run.rtBytes / 1e6, run.jsonBytes / 1e6,
                run.build.wallSeconds, run.build.peakGb,
                run.programBytes < 0 ? "no program written"
                : run.built          ? "built"
                                     : "build failed");
    std::fflush(stdout);
  }
  const CodegenRun &dpp = cg[0];
  const bool isDpp = dpp.strategy.rfind("dpp", 0) == 0;
  std::printf("\ntargets (issue 16, item 4): generated programs\n");
  std::printf("  %-16s %6d  %-28s  %s: %s\n", "dpp64-1.8b", 64,
              "the plan is DPP", dpp.strategy.c_str(), isDpp ? "met" : "NOT MET");
  std::printf("  %-16s %6d  %-28s  %.3f MB: %s\n", "dpp64-1.8b", 64,
              "program.cpp < 1 MB", dpp.programBytes / 1e6,
              dpp.programBytes >= 0 && dpp.programBytes < 1000000 ? "met"
                                                                 : "NOT MET");
  std::printf("  %-16s %6d  %-28s  %.2f s, %s: %s\n", "dpp64-1.8b", 64,
              "built at -O2 < 60 s", dpp.build.wallSeconds,
              dpp.built ? "built" : "not built",
              dpp.built && dpp.build.wallSeconds < 60 ? "met" : "NOT MET");
  std::printf("  %-16s %6d  %-28s  %.2f s, %s: %s\n", "llama8b-static", 1024,
              "builds", cg[1].build.wallSeconds,
              cg[1].built ? "built" : "not built",
              cg[1].built ? "met" : "NOT MET");
  return 0;
}
