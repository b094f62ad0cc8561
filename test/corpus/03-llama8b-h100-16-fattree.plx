// Llama-3-8B-like: 32 layers, hidden 4096, 32 heads, 8 KV heads (GQA),
// SwiGLU ffn 14336, vocab 128256. 2 nodes x 8 H100 on a 2-tier fat tree of
// 400 Gb/s ports. Free SP (sp = adaptive: FlexSP's heterogeneous Ulysses
// groups per micro-batch) under ZeRO-3 with a 60 GB memory budget and
// selective checkpointing: the FlexSP shape on a modern GQA model.

model llama3_8b {
  layers = 32; hidden = 4096; heads = 32; kv_heads = 8; ffn = 14336;
  vocab = 128256;
}

dataset docs {
  lengths = lognormal(mu = 8.0, sigma = 1.2);
  clamp = 32Ki;
  overlong = truncate;
  padding = 16;
}

fabric h100_16 {
  chip = H100;
  nodes = 2;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}

train llama8b_flexsp {
  model = llama3_8b; data = docs; fabric = h100_16;
  batch = 32; steps = 1; seed = 3;
  strategy { sp = adaptive; zero = 3; checkpoint = selective; memory_limit = 60 GB; }
}
