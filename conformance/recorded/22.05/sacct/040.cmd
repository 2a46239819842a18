run
sacct -j $A
