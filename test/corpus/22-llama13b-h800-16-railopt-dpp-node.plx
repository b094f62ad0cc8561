// LLaMA-2-13B-like (40 layers, hidden 5120, 40 heads, ffn 13824, vocab
// 32000) on 2 nodes x 8 H800 (NVLink 400 GB/s) with a rail-optimized
// network. pp = dynamic with sp omitted: each stage is one node's 8 chips
// of Ulysses SP, so 2 stages of 20 layers; adaptive checkpointing and ZeRO-3
// with a 64 GB budget. The DPP default layout.

model llama13b {
  layers = 40; hidden = 5120; heads = 40; ffn = 13824; vocab = 32000;
}

dataset docs {
  lengths = lognormal(mu = 8.5, sigma = 1.0);
  clamp = 64Ki;
  overlong = truncate;
  padding = 16;
}

fabric h800_16_rails {
  chip = H800;
  nodes = 2;
  chips_per_node = 8;
  topology = rail_optimized { rails = 8; radix = 16; link = 400 Gb/s; };
}

train llama13b_dpp_node {
  model = llama13b; data = docs; fabric = h800_16_rails;
  batch = 16; steps = 1; seed = 22;
  strategy { pp = dynamic; checkpoint = adaptive; zero = 3; memory_limit = 64 GB; }
}
