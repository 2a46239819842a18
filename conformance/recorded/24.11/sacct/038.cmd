run
sacct -j $X
