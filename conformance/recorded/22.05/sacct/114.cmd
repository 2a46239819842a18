run
sacct --array -j $A
