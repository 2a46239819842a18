run
sacct -j $R
