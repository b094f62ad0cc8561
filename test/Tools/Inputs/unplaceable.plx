// A job of all 8 chips on a fabric with one failed chip cannot be placed:
// the error names the job as the spec does ('t'), at the job, and ends
// with the error count.
model m { layers = 4; hidden = 256; heads = 4; ffn = 1Ki; vocab = 1000; }
dataset d { lengths = lognormal(mu = 7, sigma = 0.1); clamp = 4Ki; }
fabric f {
  chip = H100; nodes = 2; chips_per_node = 4;
  topology = fat_tree { radix = 4; tiers = 2; link = 100 Gb/s; };
  failed = [chip(1, 3)];
}
train t { model = m; data = d; fabric = f; chips = 8; batch = 8; strategy { sp = 1; } }
