// A RailX fabric of about 200K chips: 112 x 112 nodes of 16 B200 chips. Each
// node sits on 72 optical rails per grid dimension at 800 Gb/s; every rail is
// a ring, so a node has 2 circuits on it and a chip injects
// 2 dimensions x 72 rails x 2 circuits x 100 GB/s / 16 = 1.8 TB/s (one
// direction) into the inter-node network. Rows of 112 <= 2 x 72 + 1 nodes are
// one-hop all-to-all, so the diameter is 2.

model dense405b {
  layers = 126;
  hidden = 16384;
  heads = 128;
  kv_heads = 8;
  ffn = 53248;
  vocab = 128256;
}

dataset long_docs {
  lengths = lognormal(mu = 8.5, sigma = 1.3);
  clamp = 128Ki;
  padding = 64;
}

fabric railx200k {
  chip = B200;
  nodes = 12544;
  chips_per_node = 16;
  topology = railx {
    rows = 112;
    cols = 112;
    rails = 72;
    link = 800 Gb/s;
  };
}

train pretrain {
  model = dense405b;
  data = long_docs;
  fabric = railx200k;
  batch = 16Ki;
  seed = 1;
  strategy {
    sp = adaptive;
    pp = dynamic;
    checkpoint = adaptive;
    zero = 3;
  }
}
