// RUN: not plxc %s 2>&1 | FileCheck %s --strict-whitespace
// Devices and pipes are refused before any read: /dev/zero would never end.
import "/dev/zero";
// CHECK: {{.*}}import-device.plx:[[@LINE-1]]:8: error: cannot read '/dev/zero': it is not a regular file
// CHECK-NEXT: {{^}}import "/dev/zero";
// CHECK-NEXT: {{^}}       ^~~~~~~~~~~
