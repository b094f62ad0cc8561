// Qwen3-30B-A3B-like MoE: 48 layers, all MoE, hidden 2048, 32 query heads of
// 128 (head_dim given: 32 x 128 = 4096 != 2048), 4 KV heads, 128 experts of
// width 768 with top-8 routing, vocab 151936: about 30 B parameters, 3 B
// active. 2 nodes x 8 H200 on a 2-tier fat tree. Free SP (sp = adaptive,
// FlexSP) under ZeRO-3 with a 120 GB memory budget.

model qwen3_30b_a3b {
  layers = 48; hidden = 2048; heads = 32; kv_heads = 4; head_dim = 128;
  vocab = 151936; experts = 128; top_k = 8; moe_ffn = 768;
}

dataset docs {
  lengths = lognormal(mu = 8.0, sigma = 1.2);
  clamp = 32Ki;
  overlong = truncate;
  padding = 16;
}

fabric h200_16 {
  chip = H200;
  nodes = 2;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}

train qwen3_flexsp {
  model = qwen3_30b_a3b; data = docs; fabric = h200_16;
  batch = 32; steps = 1; seed = 15;
  strategy { sp = adaptive; zero = 3; checkpoint = selective; memory_limit = 120 GB; }
}
