// The config's 7 heads do not divide hidden 4096; the block's own heads win.
model m {
  hf = "invalid/heads-not-dividing.json";
  heads = 32;
}
