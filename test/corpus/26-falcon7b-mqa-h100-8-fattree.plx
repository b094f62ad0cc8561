// Falcon-7B-like: 32 layers, hidden 4544, 71 heads of 64 with multi-query
// attention (1 KV head), GeLU ffn 18176, vocab 65024. 71 heads is prime, so
// no Ulysses degree above 1 splits them: sp = best_homogeneous must settle
// on sp = 1, and the baselines shrink to static-sp-1, Megatron CP with
// tp = 1 and a tp = 1 pipeline. One node of 8 H100, ZeRO-3, full
// checkpointing, fp16 weights.

model falcon7b {
  layers = 32; hidden = 4544; heads = 71; kv_heads = 1; head_dim = 64;
  ffn = 18176; vocab = 65024; mlp = gelu; dtype = fp16;
}

dataset docs {
  lengths = lognormal(mu = 6.5, sigma = 0.8);
  clamp = 2Ki;
  overlong = truncate;
  padding = 8;
}

fabric h100_8 {
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 4; tiers = 2; link = 400 Gb/s; };
}

train falcon_bh {
  model = falcon7b; data = docs; fabric = h100_8;
  batch = 16; steps = 1; seed = 26;
  strategy { sp = best_homogeneous; zero = 3; checkpoint = full; }
}
