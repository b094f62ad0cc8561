// Calibration point: Megatron-LM, Narayanan et al., SC'21, Table 1, row "76.1B".
// Published: 140 TFLOP/s per GPU (45% of the A100's 312 TFLOP/s peak) on 1024 A100-80GB
// (Selene: DGX A100 nodes, 8 GPUs on NVSwitch, 8 x 200 Gb/s HDR InfiniBand per node).
// Shape and layout from NVIDIA/Megatron-LM examples/sc21/run_table_1.sh (MODEL_SIZE=76B):
// TP=8, PP=4, micro-batch 2, global batch 1792, 128 nodes, full (uniform) activation
// recomputation, fp16 (examples/sc21/CONFIG.sh), the interleaved schedule with 5 layer(s) per
// virtual stage (virtual_stages = 3). The micro-batch size is micro_batch.
// Published step time and its derivation: bench/calibration/SOURCES.md.

model gpt_76b {
  layers = 60;
  hidden = 10240;
  heads = 80;
  ffn = 40960;               // 4 x hidden, GPT MLP
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

fabric selene_1024 {
  chip = A100_80GB;
  nodes = 128;
  chips_per_node = 8;
  chips = 1024;
  intra_node = nvswitch;
  // One 200 Gb/s HDR port per GPU into a tree of 40-port HDR switches; the
  // smallest such tree that holds the job (3 tiers). Radix and tiers are
  // our choice: the paper gives only the per-node HDR bandwidth.
  topology = fat_tree { radix = 40; tiers = 3; link = 200 Gb/s; };
}

train megatron_sc21_76b {
  model = gpt_76b;
  data = seq2048;
  fabric = selene_1024;
  batch = 1792;
  steps = 1;
  seed = 0;
  strategy {
    tp = 8;
    micro_batch = 2;         // sequences per micro-batch (run_table_1.sh)
    pp = 4;
    virtual_stages = 3;      // interleaved 1F1B, 5 layer(s) per virtual stage: 60 / (4 x 5)
    checkpoint = full;       // uniform full-layer recomputation
    attention = eager;       // SC'21 predates FlashAttention: scores materialised,
                             // Megatron's fused scale-mask-softmax over them
    zero = 0;                // plain data parallelism (data-parallel size 32)
  }
}
