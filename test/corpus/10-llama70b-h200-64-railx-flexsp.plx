// Llama-3-70B-like (80 layers, hidden 8192, 64 heads, 8 KV heads, ffn 28672,
// vocab 128256) on 8 nodes x 8 H200 (141 GB) joined by a 2 x 4 RailX grid
// with 2 optical rails per dimension at 800 Gb/s. Free SP (sp = adaptive,
// FlexSP) under ZeRO-3 with full checkpointing and no memory limit: a
// 70B-class model trained with sequence parallelism only, on RailX.

model llama3_70b {
  layers = 80; hidden = 8192; heads = 64; kv_heads = 8; ffn = 28672;
  vocab = 128256;
}

dataset docs {
  lengths = lognormal(mu = 8.5, sigma = 1.2);
  clamp = 64Ki;
  overlong = truncate;
  padding = 64;
}

fabric h200_railx_64 {
  chip = H200;
  nodes = 8;
  chips_per_node = 8;
  topology = railx { rows = 2; cols = 4; rails = 2; link = 800 Gb/s; };
}

train llama70b_flexsp {
  model = llama3_70b; data = docs; fabric = h200_railx_64;
  batch = 16; steps = 1; seed = 10;
  strategy { sp = adaptive; zero = 3; checkpoint = full; }
}
