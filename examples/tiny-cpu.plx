// A few-layer GPT-style model on 8 CPU ranks (2 nodes x 4): small enough to
// run end to end under mpirun on a laptop.

model tiny {
  layers = 4;
  hidden = 256;
  heads = 4;
  ffn = 1Ki;
  vocab = 1Ki;
  dtype = fp32;
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
  topology = fat_tree {
    radix = 4;
    tiers = 2;
    link = 10 Gb/s;
  };
}

train tiny_train {
  model = tiny;
  data = short_docs;
  fabric = cpu8;
  batch = 16;
  seed = 1;
  strategy {
    sp = 2;
    zero = 3;
  }
}
