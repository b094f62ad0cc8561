// Llama-2-7B-like (32 layers, hidden 4096, 32 heads, ffn 11008, vocab 32000)
// on 48 H100: 6 nodes x 8 on a 2 x 3 torus of 200 Gb/s links. Fixed
// Ulysses sp = 8 (one node per group, 6 groups side by side), ZeRO-3,
// selective checkpointing, no memory limit. The 48-chip shape with a static
// strategy on a torus. (Without checkpointing an 8K-token sequence needs
// 91 GB per chip at sp = 8, so the job would not plan.)

model llama2_7b {
  layers = 32; hidden = 4096; heads = 32; ffn = 11008; vocab = 32000;
}

dataset docs {
  lengths = lognormal(mu = 7.0, sigma = 1.0);
  clamp = 16Ki;
  overlong = truncate;
  padding = 8;
}

fabric h100_48_torus {
  chip = H100;
  nodes = 6;
  chips_per_node = 8;
  topology = torus { dims = [2, 3]; link = 200 Gb/s; };
}

train llama7b_sp8 {
  model = llama2_7b; data = docs; fabric = h100_48_torus;
  batch = 48; steps = 1; seed = 6;
  strategy { sp = 8; zero = 3; checkpoint = selective; }
}
