// A small dynamic-pipeline job for the pass tests: 8 H100 in 2 nodes, a
// 4-layer model, Ulysses SP 4 inside each node and 2 pipeline stages, 16
// sequences a step of which a few are long, and a memory limit tight
// enough that long sequences must be split and some layers checkpointed.
model small {
  layers = 4; hidden = 512; heads = 8; ffn = 2Ki; vocab = 1000;
}
dataset mixed {
  lengths = histogram(bounds = [511, 512, 16383, 16384], weights = [0, 6, 0, 1]);
  clamp = 16Ki;
}
fabric pair {
  chip = H100;
  nodes = 2;
  chips_per_node = 4;
  topology = fat_tree { radix = 4; tiers = 2; link = 100 Gb/s; };
}
train dpp {
  model = small; data = mixed; fabric = pair;
  batch = 16; seed = 5;
  strategy { sp = 4; pp = dynamic; checkpoint = adaptive; zero = 3; memory_limit = 192 MiB; }
}
