// Mistral-NeMo-12B-like: 40 layers, hidden 5120, 32 heads of 128 (head_dim
// given), 8 KV heads, SwiGLU ffn 14336, vocab 131072. 4 nodes x 4 of an
// H100 with NVL-like memory (catalog H100 overridden to 94 GB, 3.9 TB/s)
// on a 2 x 2 torus. Fixed sp = 4 x pp = 2 (a layout named sp4-tp1-cp1-pp2),
// ZeRO-2, selective checkpointing, 90 GB limit.

model mistral_nemo {
  layers = 40; hidden = 5120; heads = 32; kv_heads = 8; head_dim = 128;
  ffn = 14336; vocab = 131072;
}

dataset docs {
  lengths = lognormal(mu = 8.0, sigma = 1.0);
  clamp = 32Ki;
  overlong = truncate;
  padding = 16;
}

fabric h100nvl_16 {
  chip = H100 { hbm = 94 GB; hbm_bw = 3.9 TB/s; };
  nodes = 4;
  chips_per_node = 4;
  topology = torus { dims = [2, 2]; link = 400 Gb/s; };
}

train nemo_sp4_pp2 {
  model = mistral_nemo; data = docs; fabric = h100nvl_16;
  batch = 16; steps = 1; seed = 24;
  strategy { sp = 4; pp = 2; zero = 2; checkpoint = selective; memory_limit = 90 GB; }
}
