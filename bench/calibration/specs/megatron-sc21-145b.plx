// Calibration point: Megatron-LM, Narayanan et al., SC'21, Table 1, row "145.6B".
// Published: 148 TFLOP/s per GPU (47% of the A100's 312 TFLOP/s peak) on 1536 A100-80GB
// (Selene: DGX A100 nodes, 8 GPUs on NVSwitch, 8 x 200 Gb/s HDR InfiniBand per node).
// Shape and layout from NVIDIA/Megatron-LM examples/sc21/run_table_1.sh (MODEL_SIZE=145B):
// TP=8, PP=8, micro-batch 2, global batch 2304, 192 nodes, full (uniform) activation
// recomputation, fp16 (examples/sc21/CONFIG.sh), the interleaved schedule with 5 layer(s) per
// virtual stage (virtual_stages = 2). The micro-batch size is micro_batch.
// Published step time and its derivation: bench/calibration/SOURCES.md.

model gpt_145b {
  layers = 80;
  hidden = 12288;
  heads = 96;
  ffn = 49152;               // 4 x hidden, GPT MLP
  mlp = gelu;
  vocab = 51200;             // all Table 1 models
  tied_embeddings = true;    // Megatron GPT shares the input embedding and the LM head
  dtype = fp16;
}

// Every sequence is exactly 2048 tokens: the only weighted bin is (2047, 2048].
dataset seq2048 {
  lengths = histogram(bounds = [2047, 2048], weights = [0, 1]);
  clamp = 2Ki;
}

fabric selene_1536 {
  chip = A100_80GB;
  nodes = 192;
  chips_per_node = 8;
  chips = 1536;
  intra_node = nvswitch;
  // One 200 Gb/s HDR port per GPU into a tree of 40-port HDR switches; the
  // smallest such tree that holds the job (3 tiers). Radix and tiers are
  // our choice: the paper gives only the per-node HDR bandwidth.
  topology = fat_tree { radix = 40; tiers = 3; link = 200 Gb/s; };
}

train megatron_sc21_145b {
  model = gpt_145b;
  data = seq2048;
  fabric = selene_1536;
  batch = 2304;
  steps = 1;
  seed = 0;
  strategy {
    tp = 8;
    micro_batch = 2;         // sequences per micro-batch (run_table_1.sh)
    pp = 8;
    virtual_stages = 2;      // interleaved 1F1B, 5 layer(s) per virtual stage: 80 / (8 x 5)
    checkpoint = full;       // uniform full-layer recomputation
    attention = eager;       // SC'21 predates FlashAttention: scores materialised,
                             // Megatron's fused scale-mask-softmax over them
    zero = 0;                // plain data parallelism (data-parallel size 24)
  }
}
