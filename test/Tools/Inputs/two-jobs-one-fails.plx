// Two train jobs on one fabric: the first cannot hold its 160K-token
// sequences (eager attention, no checkpointing); the second plans. Both
// are reported, the first with its error in its place, and plxc exits 1.
model m { layers = 4; hidden = 256; heads = 4; ffn = 1Ki; vocab = 1000; }
dataset long { lengths = lognormal(mu = 12, sigma = 0.1); clamp = 1Mi; }
dataset short { lengths = lognormal(mu = 7, sigma = 0.1); clamp = 4Ki; }
fabric f {
  chip = H100; nodes = 1; chips_per_node = 4;
  topology = fat_tree { radix = 4; tiers = 2; link = 100 Gb/s; };
}
train first {
  model = m; data = long; fabric = f; chips = 2; batch = 4; seed = 0;
  strategy { sp = 2; attention = eager; }
}
train second {
  model = m; data = short; fabric = f; chips = 2; batch = 8; seed = 0;
  strategy { sp = 2; }
}
