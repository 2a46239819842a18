run
sacct -j $C
