run
sacct -j $T
