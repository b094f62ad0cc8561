// A small RailX fabric to look at: 3 x 5 nodes of 4 H100 chips, 2 optical
// rails per grid dimension. Rows of 5 <= 2 x 2 + 1 nodes are one-hop
// all-to-all (Walecki: K_5 = two Hamiltonian rings, one per rail); columns of
// 3 are one ring. Node 7 has a failed chip and row 2's rail-0 switch a
// failed port, which placement and the circuit table work around.
//   plxc examples/railx-small.plx --emit=fabric-dot | neato -Tsvg > railx.svg
//   plxc examples/railx-small.plx --emit=circuits

fabric railx_small {
  chip = H100;
  nodes = 15;
  chips_per_node = 4;
  topology = railx {
    rows = 3;
    cols = 5;
    rails = 2;
    link = 800 Gb/s;
  };
  failed = [chip(7, 2), port(row, 2, 0, 3)];
}
