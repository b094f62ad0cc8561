// Llama-2-7B-like: 32 layers, hidden 4096, 32 heads (MHA), SwiGLU ffn 11008,
// vocab 32000. 48 chips: 6 nodes x 8 A100-80GB, a count that is not a power
// of two (users ran 48-chip jobs); the power-of-two SP degrees that divide 48
// stop at 16. Free SP (sp = adaptive) with ZeRO-3 and a 70 GB budget.

model llama2_7b {
  layers = 32; hidden = 4096; heads = 32; ffn = 11008; vocab = 32000;
}

dataset docs {
  lengths = lognormal(mu = 7.5, sigma = 1.3);
  clamp = 32Ki;
  overlong = drop;
  padding = 16;
}

fabric a100_48 {
  chip = A100_80GB;
  nodes = 6;
  chips_per_node = 8;
  chips = 48;
  topology = fat_tree { radix = 16; tiers = 2; link = 200 Gb/s; };
}

train llama7b_48_flexsp {
  model = llama2_7b; data = docs; fabric = a100_48;
  batch = 48; steps = 1; seed = 5;
  strategy { sp = adaptive; zero = 3; checkpoint = selective; memory_limit = 70 GB; }
}
