run
sacct -j $S
