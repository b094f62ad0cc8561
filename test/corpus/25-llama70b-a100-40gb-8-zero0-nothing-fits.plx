// corpus: expect-error
// Llama-3-70B-like (80 layers, hidden 8192, 64 heads, 8 KV heads, ffn 28672,
// vocab 128256) on one node of 8 A100-40GB with tp = 8 and ZeRO-0. Every
// single layer fits a chip (the language's layer rule passes), but the whole
// model's states are 16 B x 70.6 B / 8 = 141 GB per chip against 40 GB: a
// legitimate "nothing fits" case. plxc must reject the job with a planning
// error at the job (not crash, not plan it); the check expects that error.

model llama3_70b {
  layers = 80; hidden = 8192; heads = 64; kv_heads = 8; ffn = 28672;
  vocab = 128256;
}

dataset docs {
  lengths = lognormal(mu = 7.0, sigma = 0.5);
  clamp = 4Ki;
  overlong = truncate;
}

fabric a100_40_8 {
  chip = A100_40GB;
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 4; tiers = 2; link = 200 Gb/s; };
}

train llama70b_zero0 {
  model = llama3_70b; data = docs; fabric = a100_40_8;
  batch = 8; steps = 1; seed = 25;
  strategy { tp = 8; zero = 0; }
}
