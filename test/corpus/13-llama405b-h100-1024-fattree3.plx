// corpus: plxc-args: --max-simulated-ranks=512
// Llama-3.1-405B-like (126 layers, hidden 16384, 128 heads, 8 KV heads, ffn
// 53248, vocab 128256) on 128 nodes x 8 H100 = 1,024 chips, a 3-tier
// radix-16 fat tree (exactly 1,024 endpoints). Free everything: sp =
// adaptive, pp = dynamic, checkpoint = adaptive, ZeRO-3. One of the two
// large specs: the check runs it with --max-simulated-ranks=512, so the job
// is reported "not_planned"; it checks that the language, sizing and report
// of a 1K-chip job hold.

model llama3_405b {
  layers = 126; hidden = 16384; heads = 128; kv_heads = 8; ffn = 53248;
  vocab = 128256;
}

dataset long_docs {
  lengths = lognormal(mu = 8.5, sigma = 1.3);
  clamp = 128Ki;
  padding = 64;
}

fabric h100_1k {
  chip = H100;
  nodes = 128;
  chips_per_node = 8;
  topology = fat_tree { radix = 16; tiers = 3; link = 400 Gb/s; };
}

train llama405b_free {
  model = llama3_405b; data = long_docs; fabric = h100_1k;
  batch = 64; steps = 1; seed = 13;
  strategy { sp = adaptive; pp = dynamic; checkpoint = adaptive; zero = 3; }
}
