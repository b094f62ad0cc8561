// LLaMA-13B-like (40 layers, hidden 5120, 40 heads, ffn 13824, vocab 32000)
// on 4 nodes x 8 H100 on a 2 x 2 torus. Megatron 3D with everything fixed:
// pp = 4 (10 layers a stage) x tp = 4 (divides the 40 heads), data parallel
// 2, ZeRO-1, selective checkpointing, and a 70 GB memory limit: a fixed-pp
// 1F1B layout (pp4-tp4-1f1b).

model llama13b {
  layers = 40; hidden = 5120; heads = 40; ffn = 13824; vocab = 32000;
}

dataset docs {
  lengths = lognormal(mu = 7.5, sigma = 1.0);
  clamp = 8Ki;
  overlong = truncate;
  padding = 8;
}

fabric h100_32_torus {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  topology = torus { dims = [2, 2]; link = 400 Gb/s; };
}

train llama13b_pp4_tp4 {
  model = llama13b; data = docs; fabric = h100_32_torus;
  batch = 32; steps = 1; seed = 8;
  strategy { pp = 4; tp = 4; zero = 1; checkpoint = selective; memory_limit = 70 GB; }
}
