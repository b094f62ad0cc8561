//===- DiagnosticsTest.cpp - Clang-style diagnostics ----------------------===//
#include "frontend/Diagnostics.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace plexus::frontend;

TEST(Diagnostics, PrintsLocationLineAndCaret) {
  SourceManager sources;
  uint32_t id = sources.addBuffer("spec.plx", "model m {\n  layers = -3;\n}\n");
  DiagnosticEngine diags(sources);
  diags.error({id, 2, 12, 2}, "field 'layers' must be at least 1, got -3");
  std::ostringstream os;
  diags.print(os);
  EXPECT_EQ(os.str(), "spec.plx:2:12: error: field 'layers' must be at least "
                      "1, got -3\n"
                      "  layers = -3;\n"
                      "           ^~\n"
                      "1 error generated.\n");
}

TEST(Diagnostics, NotesFollowTheirErrorAndTabsAreKept) {
  SourceManager sources;
  uint32_t id = sources.addBuffer("a.plx", "\tx = 1;\nmodel y {}\n");
  DiagnosticEngine diags(sources);
  Diagnostic &d = diags.error({id, 1, 2, 1}, "first");
  DiagnosticEngine::note(d, {id, 2, 7, 1}, "related");
  diags.error({id, 2, 1, 5}, "second");
  std::ostringstream os;
  diags.print(os);
  EXPECT_EQ(os.str(), "a.plx:1:2: error: first\n\tx = 1;\n\t^\n"
                      "a.plx:2:7: note: related\nmodel y {}\n      ^\n"
                      "a.plx:2:1: error: second\nmodel y {}\n^~~~~\n"
                      "2 errors generated.\n");
  EXPECT_EQ(diags.errorCount(), 2u);
}

TEST(Diagnostics, CaretCountsCodePointsNotBytes) {
  SourceManager sources;
  // "é" is two bytes; the caret under 'x' must be one column after it.
  uint32_t id = sources.addBuffer("u.plx", "// é x\n");
  DiagnosticEngine diags(sources);
  diags.error({id, 1, 6, 1}, "here");
  std::ostringstream os;
  diags.print(os);
  EXPECT_NE(os.str().find("// é x\n     ^\n"), std::string::npos) << os.str();
}

TEST(Diagnostics, Utf8Validation) {
  uint32_t line = 0, col = 0;
  EXPECT_TRUE(validateUtf8("ok é ✓\n", line, col));
  EXPECT_FALSE(validateUtf8("ab\ncd\xff", line, col));
  EXPECT_EQ(line, 2u);
  EXPECT_EQ(col, 3u);
  EXPECT_FALSE(validateUtf8("\xc0\x80", line, col)); // overlong NUL
  EXPECT_FALSE(validateUtf8("\xe2\x82", line, col)); // truncated
  EXPECT_EQ(countCodePoints("é✓a"), 3u);
}

TEST(Diagnostics, LocationlessErrorsHaveNoCaret) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  diags.error({}, "cannot read 'x.plx': No such file or directory");
  std::ostringstream os;
  diags.print(os);
  EXPECT_EQ(os.str(), "error: cannot read 'x.plx': No such file or "
                      "directory\n1 error generated.\n");
}

TEST(Diagnostics, LocationAtCountsLinesAndCodePoints) {
  SourceManager sources;
  uint32_t id = sources.addBuffer("c.json", "{\n  \"é\": 12,\n}\n");
  // Byte 10 is the '1' of 12 (line 2 starts at byte 2): after two spaces,
  // a quote, "é" (2 bytes, one column), a quote, ':' and a space: column 8.
  SourceLocation loc = sources.locationAt(id, 10, 2);
  EXPECT_EQ(loc.line, 2u);
  EXPECT_EQ(loc.col, 8u);
  EXPECT_EQ(loc.length, 2u);
  EXPECT_EQ(sources.locationAt(id, 0).col, 1u);
  // Past the end: clamped to the end, never out of the buffer.
  EXPECT_EQ(sources.locationAt(id, 1000).line, 4u);
}

TEST(Diagnostics, ADiagnosticInANamedFileEndsWithANoteWhereItIsNamed) {
  SourceManager sources;
  uint32_t spec = sources.addBuffer("s.plx", "model m { hf = \"c.json\"; }\n");
  uint32_t json = sources.addBuffer("c.json", "{\"a\": 1}\n");
  sources.setOrigin(json, {spec, 1, 16, 8}, "named here");
  DiagnosticEngine diags(sources);
  diags.error({json, 1, 7, 1}, "bad");
  diags.error({spec, 1, 1, 5}, "other"); // no origin: no note
  std::ostringstream os;
  diags.print(os);
  EXPECT_EQ(os.str(), "c.json:1:7: error: bad\n{\"a\": 1}\n      ^\n"
                      "s.plx:1:16: note: named here\n"
                      "model m { hf = \"c.json\"; }\n"
                      "               ^~~~~~~~\n"
                      "s.plx:1:1: error: other\n"
                      "model m { hf = \"c.json\"; }\n^~~~~\n"
                      "2 errors generated.\n");
}
