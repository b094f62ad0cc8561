// Imported by cyclic-import-b.plx; imports the file that started it all.
import "../cyclic-import-a.plx";
