// A RailX fabric of about 200K chips: 112 x 112 nodes of 16 B200 chips. Each
// node has 144 optical rails per grid dimension at 800 Gb/s, so a chip injects
// 2 x 144 x 100 GB/s / 16 = 1.8 TB/s into the inter-node network.

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
    rails = 144;
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
