run
sacct -j $C,$F
