model m {
  hf = 3;
}
