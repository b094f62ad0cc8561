//===- WikipediaBatches.h - Wikipedia batches for tests ---------*- C++ -*-===//
//
// Global batches of the Wikipedia length sample as reference flexsp_dpp.md
// section 4.1 forms them: each length padded to a multiple of 128, lengths
// above 384,000 - 128 dropped, batch i = kept lengths [512 i, 512 (i + 1)).
// The file is read once per test binary.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_TEST_UNIT_ADAPTIVESP_WIKIPEDIABATCHES_H
#define PLEXUS_TEST_UNIT_ADAPTIVESP_WIKIPEDIABATCHES_H

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace plexus::adaptivesp {

/// Global batch `index` of 512 padded lengths; empty when the data file is
/// missing or too short.
inline std::vector<int64_t> wikipediaBatch(int64_t index) {
  static const std::vector<int64_t> kept = [] {
    // The data file, found from this header so no build setting is needed.
    std::string self = __FILE__;
    std::string path = self.substr(0, self.rfind('/')) +
                       "/../../../examples/data/wikipedia-lengths.txt";
    std::ifstream in(path);
    std::vector<int64_t> out;
    for (int64_t v; in >> v;) {
      int64_t padded = (v + 127) / 128 * 128;
      if (padded <= 384000 - 128)
        out.push_back(padded);
    }
    return out;
  }();
  const size_t from = static_cast<size_t>(index) * 512;
  if (index < 0 || from + 512 > kept.size())
    return {};
  return std::vector<int64_t>(kept.begin() + from, kept.begin() + from + 512);
}

} // namespace plexus::adaptivesp

#endif // PLEXUS_TEST_UNIT_ADAPTIVESP_WIKIPEDIABATCHES_H
