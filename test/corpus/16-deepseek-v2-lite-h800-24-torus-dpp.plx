// DeepSeek-V2-Lite-like MoE: 27 layers, the first dense (ffn 10944), then 64
// routed experts of width 1408 with top-6 routing and 2 shared experts,
// hidden 2048, 16 heads of 128 (MLA is approximated as MHA with head_dim
// 128), vocab 102400: about 16 B parameters. 3 nodes x 8 H800 on a 3 x 1
// torus. Dynamic pipeline: pp = dynamic with sp left to a node (8), so 3
// stages of 9 layers, stage-aware adaptive checkpointing, ZeRO-3. 24 chips.

model deepseek_v2_lite {
  layers = 27; dense_layers = 1; hidden = 2048; heads = 16; head_dim = 128;
  ffn = 10944; experts = 64; top_k = 6; shared_experts = 2; moe_ffn = 1408;
  vocab = 102400;
}

dataset docs {
  lengths = lognormal(mu = 8.0, sigma = 1.3);
  clamp = 32Ki;
  overlong = truncate;
  padding = 16;
}

fabric h800_24_torus {
  chip = H800;
  nodes = 3;
  chips_per_node = 8;
  topology = torus { dims = [3, 1]; link = 400 Gb/s; };
}

train dsv2lite_dpp {
  model = deepseek_v2_lite; data = docs; fabric = h800_24_torus;
  batch = 32; steps = 1; seed = 16;
  strategy { pp = dynamic; checkpoint = adaptive; zero = 3; }
}
