//===- Chunk.cpp - DPP's heterogeneous micro-batch ------------------------===//
//
// The {C, S} accessors of Chunk.h.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/Chunk.h"

namespace plexus::dpp {

const char *chunkKindName(ChunkKind k) {
  switch (k) {
  case ChunkKind::Packed:
    return "packed";
  case ChunkKind::Split:
    return "split";
  case ChunkKind::Hybrid:
    return "hybrid";
  }
  return "?";
}

int64_t Chunk::context() const {
  return hasSplitSlice() && !pieces.empty() ? pieces.front().begin : 0;
}

int64_t Chunk::splitTokens() const {
  return hasSplitSlice() && !pieces.empty() ? pieces.front().tokens() : 0;
}

int64_t Chunk::tokens() const {
  int64_t t = 0;
  for (const SequencePiece &p : pieces)
    t += p.tokens();
  return t;
}

std::vector<int64_t> Chunk::sliceLengths() const {
  std::vector<int64_t> out;
  for (const SequencePiece &p : pieces)
    out.push_back(p.tokens());
  return out;
}

int64_t Chunk::splitSequence() const {
  return hasSplitSlice() && !pieces.empty() ? pieces.front().sequence : -1;
}

} // namespace plexus::dpp
