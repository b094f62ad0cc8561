// Llama-3-70B-like (80 layers, hidden 8192, 64 heads, 8 KV heads, ffn 28672,
// vocab 128256) on 16 nodes x 8 B200 (180 GB) on a 2-tier fat tree of
// 800 Gb/s ports. tp = 8 fixed with pp = dynamic: with tp set, the planner
// does not run DPP but searches the static pipeline depths (at ZeRO <= 2)
// and keeps the fastest; ZeRO-1, full checkpointing. 128 chips.

model llama3_70b {
  layers = 80; hidden = 8192; heads = 64; kv_heads = 8; ffn = 28672;
  vocab = 128256;
}

dataset docs {
  lengths = lognormal(mu = 7.5, sigma = 1.0);
  clamp = 16Ki;
  overlong = truncate;
  padding = 8;
}

fabric b200_128 {
  chip = B200;
  nodes = 16;
  chips_per_node = 8;
  topology = fat_tree { radix = 16; tiers = 2; link = 800 Gb/s; };
}

train llama70b_pp_search {
  model = llama3_70b; data = docs; fabric = b200_128;
  batch = 16; steps = 1; seed = 11;
  strategy { tp = 8; pp = dynamic; zero = 1; checkpoint = full; }
}
