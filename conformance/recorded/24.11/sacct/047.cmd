run
sacct -X -j $M
