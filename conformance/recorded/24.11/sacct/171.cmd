run
sacct -j $C.7
