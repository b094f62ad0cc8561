// Dynamic pipeline parallelism's testbed: LLaMA-13B on 4 nodes x 8 A800-80GB
// (NVLink 400 GB/s, 400 Gb/s InfiniBand), Ulysses SP inside a node and a
// dynamic pipeline across nodes, 96K context, global batch 512.

model llama13b {
  layers = 40;
  hidden = 5120;
  heads = 40;
  ffn = 13824;
  vocab = 32000;
}

// A documented stand-in for the GitHub corpus: most sequences under 16K,
// under 0.6% above 64K (docs/language.md, dataset section).
dataset github_like {
  lengths = histogram(bounds = [2Ki, 4Ki, 8Ki, 16Ki, 32Ki, 64Ki, 96Ki],
                      weights = [59.2, 14.0, 10.0, 8.5, 5.0, 2.8, 0.5]);
  clamp = 96Ki;
  overlong = truncate;
}

fabric a800_32 {
  chip = A800;
  nodes = 4;
  chips_per_node = 8;
  topology = fat_tree {
    radix = 8;
    tiers = 2;
    // 400 Gb/s of InfiniBand per node for its 8 GPUs, 50 Gb/s per chip's
    // port, as for FlexSP's cluster (docs/dpp.md).
    link = 50 Gb/s;
  };
}

train dpp {
  model = llama13b;
  data = github_like;
  fabric = a800_32;
  batch = 512;
  seed = 7;
  strategy {
    sp = 8;
    pp = dynamic;
    checkpoint = adaptive;
    zero = 3;
  }
}
