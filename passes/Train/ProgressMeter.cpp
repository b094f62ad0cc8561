//===- ProgressMeter.cpp - Progress lines for stages that run long --------===//
#include "passes/Train/ProgressMeter.h"

#include <cstdio>
#include <unistd.h>

namespace plexus::train {

ProgressMeter::ProgressMeter(Sink sink, std::chrono::milliseconds after,
                             std::chrono::milliseconds every)
    : sink(std::move(sink)), after(after), every(every),
      lastPrint(created - after) {
  if (this->sink)
    watcher = std::thread([this] { watch(); });
}

ProgressMeter::~ProgressMeter() {
  if (!watcher.joinable())
    return;
  {
    std::lock_guard<std::mutex> guard(lock);
    stopping = true;
  }
  wake.notify_all();
  watcher.join();
}

void ProgressMeter::stage(std::string text) {
  if (!sink)
    return;
  std::lock_guard<std::mutex> guard(lock);
  const Clock::time_point now = Clock::now();
  current = std::move(text);
  stageStart = now;
  printed = false;
  printDue(now);
}

void ProgressMeter::clear() {
  if (!sink)
    return;
  std::lock_guard<std::mutex> guard(lock);
  current.clear();
}

void ProgressMeter::printDue(Clock::time_point now) {
  if (current.empty() || now - created < after)
    return;
  if (!printed) {
    // At most a line per `after`: a stage that ends sooner may go unsaid,
    // the one that runs then is printed.
    if (now - lastPrint < after)
      return;
    sink(current);
    printed = true;
    lastPrint = now;
    nextPrint = now + every;
    return;
  }
  if (now < nextPrint)
    return;
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now - stageStart);
  sink(current + " (still running, " + std::to_string(seconds.count()) +
       " s)");
  lastPrint = now;
  nextPrint = now + every;
}

ProgressMeter::Sink ProgressMeter::stderrSink() {
  return [](const std::string &line) {
    const std::string text = line + "\n";
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(2, text.data() + done, text.size() - done);
      if (n <= 0)
        return;
      done += static_cast<size_t>(n);
    }
  };
}

void ProgressMeter::watch() {
  std::unique_lock<std::mutex> guard(lock);
  while (!stopping) {
    wake.wait_for(guard, std::chrono::milliseconds(100));
    if (!stopping)
      printDue(Clock::now());
  }
}

} // namespace plexus::train
