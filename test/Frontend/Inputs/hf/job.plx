// A model read from a Hugging Face config.json (test/Frontend/hf-import.test
// switches the config with --set m.hf=...), and a small job to report it.
model m {
  hf = "llama-3.1-8b.json";
}

dataset d {
  lengths = histogram(bounds = [127, 128], weights = [0, 1]);
  clamp = 128;
}

fabric f {
  chip = H100;
  nodes = 8;
  chips_per_node = 8;
  topology = fat_tree {
    radix = 64;
    tiers = 2;
    link = 400 Gb/s;
  };
}

train t {
  model = m;
  data = d;
  fabric = f;
  batch = 8;
}
