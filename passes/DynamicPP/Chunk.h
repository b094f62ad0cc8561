//===- Chunk.h - DPP's heterogeneous micro-batch ----------------*- C++ -*-===//
//
// The chunk of dynamic pipeline parallelism (DPP, Concertina / InfiniPipe;
// reference flexsp_dpp.md section 2.2): the micro-batch a 1F1B pipeline
// runs, in the uniform form {C, S} - a context length C (tokens of the same
// sequence before the chunk's first slice) and the multiset S of slice
// lengths. Three kinds: a packed chunk of whole short sequences (C = 0), a
// split chunk holding one slice of a long sequence (C = the tokens of its
// earlier slices), and a hybrid chunk holding a long sequence's tail slice
// beside whole short sequences. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_DYNAMICPP_CHUNK_H
#define PLEXUS_PASSES_DYNAMICPP_CHUNK_H

#include "passes/Cost/ProfiledCostModel.h"
#include "passes/Support/Result.h"

#include <cstdint>
#include <vector>

namespace plexus::dpp {

using ::plexus::Result; // passes/Support/Result.h

/// Tokens [begin, end) of sequence `sequence` (an index into the batch).
struct SequencePiece {
  int64_t sequence = 0;
  int64_t begin = 0, end = 0;
  int64_t tokens() const { return end - begin; }
};

enum class ChunkKind {
  Packed, // whole short sequences
  Split,  // one slice of a split sequence
  Hybrid, // a split sequence's tail slice plus whole short sequences
};

/// "packed", "split", "hybrid".
const char *chunkKindName(ChunkKind k);

struct Chunk {
  ChunkKind kind = ChunkKind::Packed;
  /// Split and Hybrid: pieces[0] is the split sequence's slice, attending
  /// to the pieces[0].begin tokens before it. Every other piece is a whole
  /// short sequence (begin 0, end its length).
  std::vector<SequencePiece> pieces;
  /// Split and Hybrid: pieces[0] is its sequence's last slice.
  bool tail = false;

  bool hasSplitSlice() const { return kind != ChunkKind::Packed; }
  /// C: the context of the split slice; 0 for a packed chunk.
  int64_t context() const;
  /// s0: the split slice's tokens; 0 for a packed chunk.
  int64_t splitTokens() const;
  /// Every token of the chunk.
  int64_t tokens() const;
  /// S: the pieces' lengths, in piece order.
  std::vector<int64_t> sliceLengths() const;
  /// The split sequence's index; -1 for a packed chunk.
  int64_t splitSequence() const;
};

} // namespace plexus::dpp

#endif // PLEXUS_PASSES_DYNAMICPP_CHUNK_H
