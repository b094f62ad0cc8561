// GLM-4.5-Air-like MoE: 46 layers, the first dense (ffn 10944), 128 routed
// experts of width 1408 with top-8 routing and 1 shared expert, hidden 4096,
// 96 query heads of 128, 8 KV heads, one MTP layer, vocab 151552: about
// 106 B parameters. 4 nodes x 8 B200 on a rail-optimized network. All fixed:
// tp = 4 (divides 96 heads), pp = 4 (46 layers split 12/12/11/11), data
// parallel 2, ZeRO-1, selective checkpointing.

model glm45_air {
  layers = 46; dense_layers = 1; hidden = 4096; heads = 96; kv_heads = 8;
  head_dim = 128; ffn = 10944; experts = 128; top_k = 8; shared_experts = 1;
  moe_ffn = 1408; mtp_layers = 1; vocab = 151552;
}

dataset docs {
  lengths = lognormal(mu = 7.5, sigma = 1.0);
  clamp = 16Ki;
  overlong = truncate;
  padding = 8;
}

fabric b200_32_rails {
  chip = B200;
  nodes = 4;
  chips_per_node = 8;
  topology = rail_optimized { rails = 8; radix = 16; link = 800 Gb/s; };
}

train glm45_air_3d {
  model = glm45_air; data = docs; fabric = b200_32_rails;
  batch = 32; steps = 1; seed = 17;
  strategy { tp = 4; pp = 4; zero = 1; checkpoint = selective; }
}
