// Calibration point: Megatron-LM, Narayanan et al., SC'21, Table 1, row "1008B".
// Published: 163 TFLOP/s per GPU (52% of the A100's 312 TFLOP/s peak) on 3072 A100-80GB
// (Selene: DGX A100 nodes, 8 GPUs on NVSwitch, 8 x 200 Gb/s HDR InfiniBand per node).
// Shape and layout from NVIDIA/Megatron-LM examples/sc21/run_table_1.sh (MODEL_SIZE=1T):
// TP=8, PP=64, micro-batch 1, global batch 3072, 384 nodes, full (uniform) activation
// recomputation, fp16 (examples/sc21/CONFIG.sh). Not expressible here: the
// non-interleaved 1F1B schedule.
// Published step time and its derivation: bench/calibration/SOURCES.md.

model gpt_1t {
  layers = 128;
  hidden = 25600;
  heads = 160;
  ffn = 102400;               // 4 x hidden, GPT MLP
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

fabric selene_3072 {
  chip = A100_80GB;
  nodes = 384;
  chips_per_node = 8;
  chips = 3072;
  intra_node = nvswitch;
  // One 200 Gb/s HDR port per GPU into a tree of 40-port HDR switches; the
  // smallest such tree that holds the job (3 tiers). Radix and tiers are
  // our choice: the paper gives only the per-node HDR bandwidth.
  topology = fat_tree { radix = 40; tiers = 3; link = 200 Gb/s; };
}

train megatron_sc21_1t {
  model = gpt_1t;
  data = seq2048;
  fabric = selene_3072;
  batch = 3072;
  steps = 1;
  seed = 0;
  strategy {
    tp = 8;
    micro_batch = 1;         // sequences per micro-batch (run_table_1.sh)
    pp = 64;
    checkpoint = full;       // uniform full-layer recomputation
    attention = eager;       // SC'21 predates FlashAttention: scores materialised,
                             // Megatron's fused scale-mask-softmax over them
    zero = 0;                // plain data parallelism (data-parallel size 6)
  }
}
