// Llama-3.1-8B-like (32 layers, hidden 4096, 32 heads, 8 KV heads, ffn
// 14336, vocab 128256) with long context on 8 nodes x 4 GH200 (96 GB) on a
// 3-tier radix-8 fat tree (128 endpoints). Megatron TP x CP fixed: tp = 2,
// cp = 2, data parallel 8, ZeRO-1, selective checkpointing.

model llama3_8b {
  layers = 32; hidden = 4096; heads = 32; kv_heads = 8; ffn = 14336;
  vocab = 128256;
}

dataset long_docs {
  lengths = lognormal(mu = 9.0, sigma = 0.8);
  clamp = 64Ki;
  overlong = truncate;
  padding = 64;
}

fabric gh200_32 {
  chip = GH200;
  nodes = 8;
  chips_per_node = 4;
  topology = fat_tree { radix = 8; tiers = 3; link = 400 Gb/s; };
}

train llama8b_tp2_cp2 {
  model = llama3_8b; data = long_docs; fabric = gh200_32;
  batch = 16; steps = 1; seed = 23;
  strategy { tp = 2; cp = 2; zero = 1; checkpoint = selective; }
}
