//===- ProgressMeter.h - Progress lines for stages that run long -*- C++ -*-===//
//
// A stage is a line of text that says what runs now and how far it is
// ("step 1 of 1: simulating dpp (plan 7 of at most 11)"). stage() names
// the stage that starts. Once the meter has run for `after` (a second),
// it prints the stage that runs, at most one line per `after` (stages that
// end sooner may go unsaid), and a stage again every `every` (10 s) with
// its elapsed seconds while it lasts. A quick run prints nothing; a long
// one says what it is doing about once a second, even while one call (a
// solver, a simulation) runs for minutes. A watcher thread does the
// waiting; every sink call is made under the meter's lock, so lines never
// interleave.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_PROGRESSMETER_H
#define PLEXUS_PASSES_TRAIN_PROGRESSMETER_H

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace plexus::train {

class ProgressMeter {
public:
  using Sink = std::function<void(const std::string &)>;
  using Clock = std::chrono::steady_clock;

  /// No sink: every call does nothing (no thread either).
  explicit ProgressMeter(Sink sink,
                         std::chrono::milliseconds after =
                             std::chrono::milliseconds(1000),
                         std::chrono::milliseconds every =
                             std::chrono::milliseconds(10000));
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter &) = delete;
  ProgressMeter &operator=(const ProgressMeter &) = delete;

  /// The stage that starts now (replaces the current one).
  void stage(std::string text);
  /// Nothing runs any more (the current stage is not printed).
  void clear();

  /// Writes each line to stderr in one write(2) call, bypassing llvm::errs()
  /// (whose tie to stdout would flush stdout from the watcher thread).
  static Sink stderrSink();

private:
  void watch();
  /// Under `lock`: prints the current stage if it is due.
  void printDue(Clock::time_point now);

  Sink sink;
  std::chrono::milliseconds after, every;
  Clock::time_point created = Clock::now();
  std::mutex lock;
  std::condition_variable wake;
  std::string current;
  Clock::time_point stageStart, nextPrint, lastPrint;
  bool printed = false, stopping = false;
  std::thread watcher;
};

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_PROGRESSMETER_H
