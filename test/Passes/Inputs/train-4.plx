// A small training job for the pass tests: 4 H100 in 2 nodes, a 4-layer
// model, 8 short sequences a step, Ulysses SP 2 with ZeRO-3.
model small {
  layers = 4; hidden = 256; heads = 4; kv_heads = 2; ffn = 1Ki; vocab = 1000;
}
dataset short {
  lengths = histogram(bounds = [255, 256, 1023, 1024], weights = [0, 3, 0, 1]);
  clamp = 2Ki;
}
fabric pair {
  chip = H100;
  nodes = 2;
  chips_per_node = 2;
  topology = fat_tree { radix = 4; tiers = 2; link = 100 Gb/s; };
}
train job {
  model = small; data = short; fabric = pair;
  batch = 8; seed = 3;
  strategy { sp = 2; zero = 3; checkpoint = selective; }
}
