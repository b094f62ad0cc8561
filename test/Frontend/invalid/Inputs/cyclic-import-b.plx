// Imported by cyclic-import-a.plx; closes the cycle through c.
import "cyclic-import-c.plx";
