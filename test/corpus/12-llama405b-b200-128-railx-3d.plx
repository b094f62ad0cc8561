// Llama-3.1-405B-like: 126 layers, hidden 16384, 128 heads, 8 KV heads
// (GQA), SwiGLU ffn 53248, vocab 128256. 16 nodes x 8 B200 on a 4 x 4 RailX
// grid with 2 rails per dimension. All fixed: tp = 8, pp = 8 (126 layers
// split 16/15), data parallel 2, ZeRO-1, full checkpointing: about 63 GB of
// model states per chip, so the 180 GB B200 holds it.

model llama3_405b {
  layers = 126; hidden = 16384; heads = 128; kv_heads = 8; ffn = 53248;
  vocab = 128256;
}

dataset docs {
  lengths = lognormal(mu = 7.5, sigma = 0.8);
  clamp = 8Ki;
  overlong = truncate;
  padding = 8;
}

fabric b200_railx_128 {
  chip = B200;
  nodes = 16;
  chips_per_node = 8;
  topology = railx { rows = 4; cols = 4; rails = 2; link = 800 Gb/s; };
}

train llama405b_3d {
  model = llama3_405b; data = docs; fabric = b200_railx_128;
  batch = 16; steps = 1; seed = 12;
  strategy { tp = 8; pp = 8; zero = 1; checkpoint = full; }
}
