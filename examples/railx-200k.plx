// A RailX fabric of about 200K chips: 112 x 112 nodes of 16 B200 chips, the
// RailX abstract's "200K chips with 1.8 TB per-chip bandwidth" (arXiv
// 2507.18889). We read 1.8 TB/s the way NVIDIA states B200's NVLink 5 figure
// it matches: 18 links x 100 GB/s, the total of both directions, so 900 GB/s
// per direction (docs/railx.md, "Which 1.8 TB/s"). Each node sits on 36
// optical rails per grid dimension at 800 Gb/s; every rail is a ring, so a
// node has 2 circuits on it and a chip injects
// 2 dimensions x 36 rails x 2 circuits x 100 GB/s / 16 = 900 GB/s per
// direction into the inter-node network. Rows of 112 > 2 x 36 + 1 nodes are
// two hops, so the diameter is 4 (the abstract: 2-4 hops).
//
// The network is priced at the defaults of docs/railx.md; a `prices { ... }`
// block in the fabric (docs/language.md) would price it at your quotes.

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
    rails = 36;
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
