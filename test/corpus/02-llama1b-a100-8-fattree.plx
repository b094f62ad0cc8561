// Llama-3.2-1B-like: 16 layers, hidden 2048, 32 heads, 8 KV heads (GQA),
// SwiGLU ffn 8192, vocab 128256, tied embeddings. One node of 8 A100-80GB.
// Free SP degree (sp = best_homogeneous: the best single Ulysses degree for
// the batch, FlexSP's BatchAda) under ZeRO-2, no memory limit. A small dense
// model where the embedding is a large share of the parameters.

model llama1b {
  layers = 16; hidden = 2048; heads = 32; kv_heads = 8; ffn = 8Ki;
  vocab = 128256; tied_embeddings = true;
}

dataset docs {
  lengths = lognormal(mu = 7.5, sigma = 1.0);
  clamp = 16Ki;
  overlong = truncate;
  padding = 8;
}

fabric a100_8 {
  chip = A100_80GB;
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 4; tiers = 2; link = 200 Gb/s; };
}

train llama1b_bh {
  model = llama1b; data = docs; fabric = a100_8;
  batch = 32; steps = 1; seed = 2;
  strategy { sp = best_homogeneous; zero = 2; checkpoint = selective; }
}
