run
sacct -j $F
