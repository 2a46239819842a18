run
sacct -j $D
