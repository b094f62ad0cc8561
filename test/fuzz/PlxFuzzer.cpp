//===- PlxFuzzer.cpp - libFuzzer target for the .plx frontend -------------===//
//
// Feeds arbitrary bytes to the parser and the semantic pass. Whatever the
// input, the frontend must return diagnostics: no crash, no abort, no
// exception, no sanitizer report, no hang.
//
//===----------------------------------------------------------------------===//
#include "frontend/Parser.h"
#include "frontend/Sema.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace plexus::frontend;
  SourceManager sources;
  DiagnosticEngine diags(sources);
  std::string text(reinterpret_cast<const char *>(data), size);
  // Imports and data files resolve under a directory that does not exist,
  // so fuzzing never reads the machine's files.
  auto program = loadProgramFromText("/nonexistent-plexus-fuzz/input.plx",
                                     std::move(text), sources, diags);
  if (program)
    (void)analyzeProgram(*program, sources, diags);
  std::ostringstream os;
  diags.print(os);
  return 0;
}
