// One side of import-diamond.plx.
import "library.plx";

fabric left {
  chip = CPU;
  nodes = 1;
  chips_per_node = 1;
  topology = fat_tree { radix = 4; tiers = 2; link = 10 Gb/s; };
}
