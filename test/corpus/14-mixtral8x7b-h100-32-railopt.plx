// Mixtral-8x7B-like MoE: 32 layers, all MoE, hidden 4096, 32 heads, 8 KV
// heads, 8 experts of width 14336 with top-2 routing, no dense MLP (so no
// ffn), vocab 32000: about 46.7 B parameters, 12.9 B active. 4 nodes x 8
// H100 on a rail-optimized network (8 rails, radix-16 leaves). Free SP
// degree (sp = best_homogeneous) under ZeRO-3 with selective checkpointing.

model mixtral_8x7b {
  layers = 32; hidden = 4096; heads = 32; kv_heads = 8; vocab = 32000;
  experts = 8; top_k = 2; moe_ffn = 14336;
}

dataset docs {
  lengths = lognormal(mu = 7.5, sigma = 1.0);
  clamp = 32Ki;
  overlong = truncate;
  padding = 16;
}

fabric h100_32_rails {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  topology = rail_optimized { rails = 8; radix = 16; link = 400 Gb/s; };
}

train mixtral_bh {
  model = mixtral_8x7b; data = docs; fabric = h100_32_rails;
  batch = 32; steps = 1; seed = 14;
  strategy { sp = best_homogeneous; zero = 3; checkpoint = selective; }
}
