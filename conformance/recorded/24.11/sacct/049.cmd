run
sacct -l -j $C
