// Llama-3.2-1B-like (16 layers, hidden 2048, 32 heads, 8 KV heads, ffn 8192,
// vocab 128256, tied embeddings) on one node of 8 H100 with a rail-optimized
// uplink (8 rails, one node). Plain data parallelism (sp = 1 fixed) with
// ZeRO-0: every chip keeps all 1.2 B parameters' weights, gradients and Adam
// states (about 20 GB), the one ZeRO-0 shape that fits. No checkpointing.

model llama1b {
  layers = 16; hidden = 2048; heads = 32; kv_heads = 8; ffn = 8Ki;
  vocab = 128256; tied_embeddings = true;
}

dataset docs {
  lengths = lognormal(mu = 7.0, sigma = 0.8);
  clamp = 8Ki;
  overlong = truncate;
  padding = 8;
}

fabric h100_8_rails {
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
  topology = rail_optimized { rails = 8; radix = 16; link = 400 Gb/s; };
}

train llama1b_dp {
  model = llama1b; data = docs; fabric = h100_8_rails;
  batch = 16; steps = 1; seed = 21;
  strategy { sp = 1; zero = 0; }
}
