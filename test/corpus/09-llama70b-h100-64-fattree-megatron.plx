// Llama-3-70B-like: 80 layers, hidden 8192, 64 heads, 8 KV heads (GQA),
// SwiGLU ffn 28672, vocab 128256. 8 nodes x 8 H100 on a 2-tier fat tree.
// The classic Megatron-LM recipe, all fixed: tp = 8 inside a node, pp = 4
// (20 layers a stage), data parallel 2, ZeRO-1 (distributed optimizer),
// full checkpointing, Megatron's fixed micro_batch = 1.

model llama3_70b {
  layers = 80; hidden = 8192; heads = 64; kv_heads = 8; ffn = 28672;
  vocab = 128256;
}

dataset docs {
  lengths = lognormal(mu = 7.5, sigma = 0.8);
  clamp = 8Ki;
  overlong = truncate;
  padding = 8;
}

fabric h100_64 {
  chip = H100;
  nodes = 8;
  chips_per_node = 8;
  topology = fat_tree { radix = 16; tiers = 2; link = 400 Gb/s; };
}

train llama70b_megatron {
  model = llama3_70b; data = docs; fabric = h100_64;
  batch = 16; steps = 1; seed = 9;
  strategy { tp = 8; pp = 4; zero = 1; checkpoint = full; micro_batch = 1; }
}
