// RUN: plx-opt %s -split-input-file -verify-diagnostics
// One case per verifier rule of plan.pipeline, plan.chunk, plan.remat and
// the checks a step of pipelines makes.

//===----------------------------------------------------------------------===//
// plan.chunk
//===----------------------------------------------------------------------===//

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op chunk index must be non-negative, got -1}}
    plan.chunk -1 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op slices hold 2 values; each slice is a (sequence, begin, end) triple}}
    "plan.chunk"() <{index = 0 : i64, kind = 0 : i32, slices = array<i64: 0, 5>, time = 1.0 : f64, mem = 0 : i64}> : () -> ()
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op holds no slice; a chunk processes at least one}}
    plan.chunk 0 packed slices [] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op sequence id must be non-negative, got -2}}
    plan.chunk 0 packed slices [-2:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op slice 3:-5-10 begins before token 0}}
    plan.chunk 0 split slices [3:-5-10] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op slice 3:10-10 is empty (end <= begin)}}
    plan.chunk 0 split slices [3:10-10] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op sequence 4 has two slices; a chunk holds at most one slice of each sequence}}
    plan.chunk 0 hybrid slices [4:10-20, 1:0-5, 4:0-10] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op packed chunk holds slice 2:100-500, which starts inside the sequence; a packed chunk holds whole sequences}}
    plan.chunk 0 packed slices [1:0-5, 2:100-500] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op split chunk holds 2 slices; it holds exactly one}}
    plan.chunk 0 split slices [0:0-5, 1:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op hybrid chunk holds 1 slice; it holds a split sequence's last slice and at least one whole sequence}}
    plan.chunk 0 hybrid slices [0:5-10] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op hybrid chunk starts with slice 0:0-10, which is not the last slice of a split sequence (it begins at token 0)}}
    plan.chunk 0 hybrid slices [0:0-10, 1:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op hybrid chunk holds slice 1:2-5, which starts inside the sequence; only its first slice may}}
    plan.chunk 0 hybrid slices [0:5-10, 1:2-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op chunk time must be a finite, non-negative number of seconds, got -0.5}}
    plan.chunk 0 packed slices [0:0-5] time -0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op activation memory must be non-negative, got -8 bytes}}
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem -8
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.chunk' op expects parent op 'plan.pipeline'}}
  plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{expected '-' between the begin and the end of a slice (seq:begin-end)}}
    plan.chunk 0 packed slices [0:0 5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [packed, split, hybrid]}}
    plan.chunk 0 slices [0:0-5] time 1.0 mem 0
  }
}

//===----------------------------------------------------------------------===//
// plan.remat
//===----------------------------------------------------------------------===//

// -----

plan.step @s index 0 world 2 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 2 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
    // expected-error @+1 {{'plan.remat' op stage must be non-negative, got -1}}
    plan.remat stage -1 layers [1]
  }
}

// -----

plan.step @s index 0 world 2 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 2 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0, 1] {
    plan.chunk 0 packed slices [0:0-5] time 0.5 mem 0
    plan.chunk 1 packed slices [1:0-5] time 0.5 mem 0
    // expected-error @+1 {{'plan.remat' op layer count for chunk 1 must be non-negative, got -3}}
    plan.remat stage 0 layers [1, -3]
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.remat' op expects parent op 'plan.pipeline'}}
  plan.remat stage 0 layers [1]
}

//===----------------------------------------------------------------------===//
// plan.pipeline
//===----------------------------------------------------------------------===//

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op pipeline index must be non-negative, got -1}}
  plan.pipeline -1 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op stage count must be at least 1, got 0}}
  plan.pipeline 0 stages 0 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op SP degree must be at least 1, got 0}}
  plan.pipeline 0 stages 1 sp 0 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op nsplit must be at least 1, got 0}}
  plan.pipeline 0 stages 1 sp 1 nsplit 0 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op pipeline time must be a finite, non-negative number of seconds, got -1.0}}
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time -1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op bubble ratio must lie in [0, 1], got 1.5}}
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 1.5 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

// NaN is no ratio either (0x7FF8000000000000 is the f64 quiet NaN).
plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op bubble ratio must lie in [0, 1], got nan}}
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0x7FF8000000000000 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.pipeline' op expects parent op 'plan.step'}}
plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
  plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
    // expected-error @+1 {{'builtin.unrealized_conversion_cast' op cannot be in a plan.pipeline, which holds only plan.chunk and plan.remat ops}}
    %0 = builtin.unrealized_conversion_cast to i64
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0, 1] {
    plan.chunk 0 packed slices [0:0-5] time 0.5 mem 0
    plan.remat stage 0 layers [1, 0]
    // expected-error @+1 {{'plan.chunk' op follows a plan.remat; a pipeline lists its chunks first}}
    plan.chunk 1 packed slices [1:0-5] time 0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0, 1] {
    plan.chunk 0 packed slices [0:0-5] time 0.5 mem 0
    // expected-error @+1 {{'plan.chunk' op has index 2 but is chunk #1 of its pipeline; indices count up from 0 in order}}
    plan.chunk 2 packed slices [1:0-5] time 0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op holds no chunk; a pipeline runs at least one}}
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [] {
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op backward order lists 1 positions but the pipeline has 2 chunks}}
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 0.5 mem 0
    plan.chunk 1 packed slices [1:0-5] time 0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op backward order names position 2, outside the chunk positions [0, 2)}}
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [2, 0] {
    plan.chunk 0 packed slices [0:0-5] time 0.5 mem 0
    plan.chunk 1 packed slices [1:0-5] time 0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op backward order lists position 1 twice}}
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [1, 1] {
    plan.chunk 0 packed slices [0:0-5] time 0.5 mem 0
    plan.chunk 1 packed slices [1:0-5] time 0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op nsplit 3 exceeds the pipeline's 2 chunks}}
  plan.pipeline 0 stages 1 sp 1 nsplit 3 time 1.0 bubble 0.0 backward [0, 1] {
    plan.chunk 0 packed slices [0:0-5] time 0.5 mem 0
    plan.chunk 1 packed slices [1:0-5] time 0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 2 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 2 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
    // expected-error @+1 {{'plan.remat' op stage 2 is outside the pipeline's stages [0, 2)}}
    plan.remat stage 2 layers [1]
  }
}

// -----

plan.step @s index 0 world 2 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 2 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
    plan.remat stage 1 layers [1]
    // expected-error @+1 {{'plan.remat' op stage 1 already has a plan.remat; a pipeline holds at most one per stage}}
    plan.remat stage 1 layers [2]
  }
}

// -----

plan.step @s index 0 world 2 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 2 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
    // expected-error @+1 {{'plan.remat' op lists 2 layer counts but the pipeline has 1 chunks}}
    plan.remat stage 0 layers [1, 1]
  }
}

//===----------------------------------------------------------------------===//
// plan.step of pipelines
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'plan.step' op bubble ratio must lie in [0, 1], got -0.1}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 bubble -0.1 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op mixes micro-batches and pipelines; a step holds one kind or the other}}
plan.step @s index 0 world 1 time 2.0 peak_mem 0 {
  plan.microbatch 0 time 1.0 {
    plan.sp_group degree 1 ranks [0, 0] seqs [0] time 1.0 mem 0
  }
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [1:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 2.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
  // expected-error @+1 {{'plan.pipeline' op has index 2 but is pipeline #1 of its step; indices count up from 0 in order}}
  plan.pipeline 2 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [1:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 32 time 1.0 peak_mem 0 {
  // expected-error @+1 {{'plan.pipeline' op has 4 stages of SP degree 4, but stages * sp must equal the step's world of 32 ranks}}
  plan.pipeline 0 stages 4 sp 4 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 8 time 2.0 peak_mem 0 {
  plan.pipeline 0 stages 4 sp 2 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
  // expected-error @+1 {{'plan.pipeline' op has 2 stages of SP degree 4 but pipeline 0 has 4 stages of SP degree 2; the pipelines of a step share one layout}}
  plan.pipeline 1 stages 2 sp 4 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [1:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [5, 5] {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op sequence 2 has no length: the step lists 2 lengths (ids 0..1)}}
    plan.chunk 0 packed slices [0:0-5, 1:0-5, 2:0-5] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [100] {
  plan.pipeline 0 stages 1 sp 1 nsplit 2 time 1.0 bubble 0.0 backward [1, 0] {
    plan.chunk 0 split slices [0:0-60] time 0.5 mem 0
    // expected-error @+1 {{'plan.chunk' op slice 0:60-120 runs past the end of sequence 0, which has 100 tokens}}
    plan.chunk 1 split slices [0:60-120] time 0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [500, 5] {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op packed chunk holds slice 0:0-400, not the whole of sequence 0 (500 tokens)}}
    plan.chunk 0 packed slices [1:0-5, 0:0-400] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [90] {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op split chunk holds the whole of sequence 0 (90 tokens); a split chunk holds part of a sequence}}
    plan.chunk 0 split slices [0:0-90] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [90, 5] {
  plan.pipeline 0 stages 1 sp 1 nsplit 2 time 1.0 bubble 0.0 backward [1, 0] {
    plan.chunk 0 split slices [0:0-60] time 0.5 mem 0
    // expected-error @+1 {{'plan.chunk' op hybrid chunk starts with slice 0:60-80, which is not the tail of sequence 0 (90 tokens)}}
    plan.chunk 1 hybrid slices [0:60-80, 1:0-5] time 0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [90, 5] {
  plan.pipeline 0 stages 1 sp 1 nsplit 2 time 1.0 bubble 0.0 backward [1, 0] {
    plan.chunk 0 split slices [0:0-60] time 0.5 mem 0
    // expected-error @+1 {{'plan.chunk' op hybrid chunk holds slice 1:0-4, not the whole of sequence 1 (5 tokens)}}
    plan.chunk 1 hybrid slices [0:60-90, 1:0-4] time 0.5 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op tokens [40, 60) of sequence 0 are in no chunk}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [100] {
  plan.pipeline 0 stages 1 sp 1 nsplit 2 time 1.0 bubble 0.0 backward [1, 0] {
    plan.chunk 0 split slices [0:0-40] time 0.5 mem 0
    plan.chunk 1 split slices [0:60-100] time 0.5 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op tokens [60, 100) of sequence 0 are in no chunk}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [100, 5] {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0, 1] {
    plan.chunk 0 packed slices [1:0-5] time 0.5 mem 0
    plan.chunk 1 split slices [0:0-60] time 0.5 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op tokens [0, 7) of sequence 1 are in no chunk}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [5, 7] {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}

// -----

// Without lengths a sequence still starts at token 0.
// expected-error @+1 {{'plan.step' op tokens [0, 100) of sequence 6 are in no chunk}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 split slices [6:100-200] time 1.0 mem 0
  }
}

// -----

// The overlap is reported on the chunk that runs later, although its slice
// starts first.
plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [100] {
  plan.pipeline 0 stages 1 sp 1 nsplit 2 time 1.0 bubble 0.0 backward [1, 0] {
    plan.chunk 0 split slices [0:50-100] time 0.5 mem 0
    // expected-error @+1 {{'plan.chunk' op tokens [50, 60) of sequence 0 are also in chunk 0 of pipeline 0; a step processes each token once}}
    plan.chunk 1 split slices [0:0-60] time 0.5 mem 0
  }
}

// -----

// Overlaps are found without lengths too, across pipelines.
plan.step @s index 0 world 1 time 2.0 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [3:0-8] time 1.0 mem 0
  }
  plan.pipeline 1 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op tokens [0, 8) of sequence 3 are also in chunk 0 of pipeline 0; a step processes each token once}}
    plan.chunk 0 packed slices [3:0-8] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 2.0 peak_mem 0 lengths [100] {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 split slices [0:0-50] time 1.0 mem 0
  }
  plan.pipeline 1 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    // expected-error @+1 {{'plan.chunk' op holds a slice of sequence 0, which pipeline 0 also processes; a split sequence runs in one pipeline}}
    plan.chunk 0 split slices [0:50-100] time 1.0 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [100] {
  plan.pipeline 0 stages 1 sp 1 nsplit 2 time 1.0 bubble 0.0 backward [0, 1] {
    plan.chunk 0 split slices [0:50-100] time 0.5 mem 0
    // expected-error @+1 {{'plan.chunk' op slice 0:0-50 runs after slice 0:50-100 of chunk 0 of pipeline 0; a split sequence's slices run forward in token order}}
    plan.chunk 1 split slices [0:0-50] time 0.5 mem 0
  }
}

// -----

plan.step @s index 0 world 1 time 1.0 peak_mem 0 lengths [100, 5, 7] {
  // expected-error @+1 {{'plan.pipeline' op backward order visits the chunks of split sequence 0 as 1, 0, 2; they run backward in reverse forward order, 2, 1, 0}}
  plan.pipeline 0 stages 1 sp 1 nsplit 3 time 1.0 bubble 0.0 backward [1, 3, 0, 2] {
    plan.chunk 0 split slices [0:0-30] time 0.25 mem 0
    plan.chunk 1 split slices [0:30-60] time 0.25 mem 0
    plan.chunk 2 hybrid slices [0:60-100, 1:0-5] time 0.25 mem 0
    plan.chunk 3 packed slices [2:0-7] time 0.25 mem 0
  }
}

// -----

// expected-error @+1 {{'plan.step' op step time 1.5 s is less than the sum of its pipeline times, 2.0 s}}
plan.step @s index 0 world 1 time 1.5 peak_mem 0 {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
  plan.pipeline 1 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [1:0-5] time 1.0 mem 0
  }
}

// -----

// A step with neither micro-batches nor pipelines.
// expected-error @+1 {{'plan.step' op holds no micro-batch; a step runs at least one micro-batch or pipeline}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 {
}

// -----

// A step of pipelines checkpoints per chunk (plan.remat), not with the
// step-wide `checkpoint` of a step of micro-batches.
// expected-error @+1 {{'plan.step' op is a step of pipelines, which checkpoint per chunk (plan.remat); `checkpoint` is for steps of micro-batches}}
plan.step @s index 0 world 1 time 1.0 peak_mem 0 checkpoint full {
  plan.pipeline 0 stages 1 sp 1 nsplit 1 time 1.0 bubble 0.0 backward [0] {
    plan.chunk 0 packed slices [0:0-5] time 1.0 mem 0
  }
}
