// FlexSP's GPT-7B: 32 layers, hidden 4096, 64 heads of 64, GeLU ffn 16384,
// vocab 50257, on the paper's 8 nodes x 8 A100-40GB (50 Gb/s per chip into a
// fat tree), with the paper's 30 GB budget. Fixed Ulysses sp = 16 (DeepSpeed-
// Ulysses' static degree), ZeRO-3, selective checkpointing. The Wikipedia
// lengths are replaced by a log-normal stand-in so the spec is one file.

model gpt7b {
  layers = 32; hidden = 4096; heads = 64; ffn = 16Ki; vocab = 50257;
  mlp = gelu;
}

dataset wiki_like {
  lengths = lognormal(mu = 7.0, sigma = 1.5);
  clamp = 64Ki;
  overlong = drop;
  padding = 128;
}

fabric a100_64 {
  chip = A100_40GB;
  nodes = 8;
  chips_per_node = 8;
  topology = fat_tree { radix = 16; tiers = 2; link = 50 Gb/s; };
}

train gpt7b_sp16 {
  model = gpt7b; data = wiki_like; fabric = a100_64;
  batch = 64; steps = 1; seed = 42;
  strategy { sp = 16; zero = 3; checkpoint = selective; memory_limit = 30 GB; }
}
