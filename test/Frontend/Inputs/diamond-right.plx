// The other side of import-diamond.plx.
import "library.plx";
