// Two imports of the same file through different paths are no cycle and
// declare nothing twice.
// RUN: plxc %s --emit=spec 2>&1 | FileCheck %s
import "Inputs/diamond-left.plx";
import "Inputs/diamond-right.plx";

train t {
  model = shared_gpt;
  data = shared_docs;
  fabric = left;
  batch = 4;
}
// CHECK-NOT:  error
// CHECK:      plx.model @shared_gpt
// CHECK-NEXT: plx.dataset @shared_docs
// CHECK-NEXT: plx.fabric @left
// CHECK-NEXT: plx.train @t
// CHECK-NOT:  plx.model
