// Two train jobs sharing one fabric (the MLaaS case): 8 nodes x 8 H100 on a
// 2 x 4 RailX grid, 2 rails per dimension. Job 'big' takes 48 chips for a
// Llama-3-8B-like model (32 layers, hidden 4096, 32 heads, 8 KV heads, ffn
// 14336, vocab 128256) with sp = best_homogeneous and ZeRO-3; job 'small'
// takes the other 16 for a Llama-3.2-1B-like model (16 layers, hidden 2048,
// 32 heads, 8 KV heads, ffn 8192, tied embeddings) with fixed sp = 2 x pp = 2,
// ZeRO-1, selective checkpointing. Placement gives them disjoint chips;
// both must pass the check.

model llama3_8b {
  layers = 32; hidden = 4096; heads = 32; kv_heads = 8; ffn = 14336;
  vocab = 128256;
}

model llama1b {
  layers = 16; hidden = 2048; heads = 32; kv_heads = 8; ffn = 8Ki;
  vocab = 128256; tied_embeddings = true;
}

dataset docs {
  lengths = lognormal(mu = 7.0, sigma = 1.2);
  clamp = 16Ki;
  overlong = truncate;
  padding = 8;
}

fabric pod {
  chip = H100;
  nodes = 8;
  chips_per_node = 8;
  topology = railx { rows = 2; cols = 4; rails = 2; link = 800 Gb/s; };
}

train big {
  model = llama3_8b; data = docs; fabric = pod;
  chips = 48;
  batch = 48; steps = 1; seed = 19;
  strategy { sp = best_homogeneous; zero = 3; checkpoint = selective; }
}

train small {
  model = llama1b; data = docs; fabric = pod;
  chips = 16;
  batch = 16; steps = 1; seed = 20;
  strategy { sp = 2; pp = 2; zero = 1; checkpoint = selective; }
}
