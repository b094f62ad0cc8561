// Calibration point: Megatron-LM, Narayanan et al., SC'21, Table 1, row "39.1B".
// Published: 138 TFLOP/s per GPU (44% of the A100's 312 TFLOP/s peak) on 512 A100-80GB
// (Selene: DGX A100 nodes, 8 GPUs on NVSwitch, 8 x 200 Gb/s HDR InfiniBand per node).
// Shape and layout from NVIDIA/Megatron-LM examples/sc21/run_table_1.sh (MODEL_SIZE=39B):
// TP=8, PP=2, micro-batch 4, global batch 1536, 64 nodes, full (uniform) activation
// recomputation, fp16 (examples/sc21/CONFIG.sh). Not expressible here: the
// non-interleaved 1F1B schedule.
// Published step time and its derivation: bench/calibration/SOURCES.md.

model gpt_39b {
  layers = 48;
  hidden = 8192;
  heads = 64;
  ffn = 32768;               // 4 x hidden, GPT MLP
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

fabric selene_512 {
  chip = A100_80GB;
  nodes = 64;
  chips_per_node = 8;
  chips = 512;
  intra_node = nvswitch;
  // One 200 Gb/s HDR port per GPU into a tree of 40-port HDR switches; the
  // smallest such tree that holds the job (2 tiers). Radix and tiers are
  // our choice: the paper gives only the per-node HDR bandwidth.
  topology = fat_tree { radix = 40; tiers = 2; link = 200 Gb/s; };
}

train megatron_sc21_39b {
  model = gpt_39b;
  data = seq2048;
  fabric = selene_512;
  batch = 1536;
  steps = 1;
  seed = 0;
  strategy {
    tp = 8;
    micro_batch = 4;         // sequences per micro-batch (run_table_1.sh)
    pp = 2;
    checkpoint = full;       // uniform full-layer recomputation
    attention = eager;       // SC'21 predates FlashAttention: scores materialised,
                             // Megatron's fused scale-mask-softmax over them
    zero = 0;                // plain data parallelism (data-parallel size 32)
  }
}
