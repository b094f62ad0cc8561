// Tiny GPT-style model (4 layers, hidden 256, 4 heads, GeLU, fp32) on 8 CPU
// ranks (2 nodes x 4, ring inside a node, 10 Gb/s fat tree). The smallest
// shape in the corpus: fixed Ulysses sp = 2, ZeRO-3, no memory limit. It is
// the plan the runtime can execute under mpirun, so the check covers the
// shape the end-to-end tests use.

model tiny {
  layers = 4; hidden = 256; heads = 4; ffn = 1Ki; vocab = 1Ki;
  mlp = gelu; dtype = fp32;
}

dataset short_docs {
  lengths = lognormal(mu = 5.0, sigma = 0.8);
  clamp = 2Ki;
  padding = 8;
}

fabric cpu8 {
  chip = CPU;
  nodes = 2;
  chips_per_node = 4;
  intra_node = ring;
  intra_node_bw = 20 GB/s;
  topology = fat_tree { radix = 4; tiers = 2; link = 10 Gb/s; };
}

train tiny_sp2 {
  model = tiny; data = short_docs; fabric = cpu8;
  batch = 16; steps = 1; seed = 1;
  strategy { sp = 2; zero = 3; }
}
