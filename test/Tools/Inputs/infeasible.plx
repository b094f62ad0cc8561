// Ulysses SP 2 cannot hold a 160K-token sequence without checkpointing when
// the attention kernel is eager (it keeps every score). With the default
// fused kernel it fits (plxc-predict.test checks both).
model m { layers = 4; hidden = 256; heads = 4; ffn = 1Ki; vocab = 1000; }
dataset d { lengths = lognormal(mu = 12, sigma = 0.1); clamp = 1Mi; }
fabric f {
  chip = H100; nodes = 1; chips_per_node = 2;
  topology = fat_tree { radix = 4; tiers = 2; link = 100 Gb/s; };
}
train t {
  model = m; data = d; fabric = f; batch = 4; seed = 0;
  strategy { sp = 2; attention = eager; }
}
