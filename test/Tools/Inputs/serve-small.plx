// A small serve job for the plxc tests: a 16-layer MoE on 2 nodes x 8
// H800, replaying 48 synthetic SWE-Bench-like tasks 16 at a time; the
// planner chooses the wave interval.
model moe {
  layers = 16; dense_layers = 1; hidden = 2048; heads = 16; kv_heads = 4;
  ffn = 8Ki; experts = 32; top_k = 4; shared_experts = 1; moe_ffn = 1Ki;
  mtp_layers = 1; vocab = 32000; dtype = fp8;
}
workload swe {
  synthetic = swe_bench { tasks = 48; turns = 6; prompt = 4000; max_len = 32Ki; };
  concurrency = 16;
}
fabric h800_16 {
  chip = H800;
  nodes = 2;
  chips_per_node = 8;
  topology = rail_optimized { rails = 8; radix = 16; link = 400 Gb/s; };
}
serve agents {
  model = moe; workload = swe; fabric = h800_16; seed = 5;
  strategy { pp = 2; ep = 8; dp_attention = true; mtp = 3; wave_interval = auto; }
}
