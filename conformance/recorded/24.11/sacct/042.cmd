run
sacct -j $M
