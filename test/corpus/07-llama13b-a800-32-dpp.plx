// LLaMA-13B-like: 40 layers, hidden 5120, 40 heads (MHA), SwiGLU ffn 13824,
// vocab 32000, on the DPP paper's testbed: 4 nodes x 8 A800-80GB, 50 Gb/s
// per chip into a fat tree. Dynamic pipeline (pp = dynamic) with a fixed
// Ulysses sp = 8 per stage (4 stages of 10 layers), stage-aware adaptive
// checkpointing, ZeRO-3: the planner-chosen pipeline shape. Batch cut to 32.

model llama13b {
  layers = 40; hidden = 5120; heads = 40; ffn = 13824; vocab = 32000;
}

dataset github_like {
  lengths = histogram(bounds = [2Ki, 4Ki, 8Ki, 16Ki, 32Ki, 64Ki],
                      weights = [59.2, 14.0, 10.0, 8.5, 5.0, 3.3]);
  clamp = 64Ki;
  overlong = truncate;
}

fabric a800_32 {
  chip = A800;
  nodes = 4;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 50 Gb/s; };
}

train llama13b_dpp {
  model = llama13b; data = github_like; fabric = a800_32;
  batch = 32; steps = 1; seed = 7;
  strategy { sp = 8; pp = dynamic; checkpoint = adaptive; zero = 3; }
}
