run
sacct -j $Q
