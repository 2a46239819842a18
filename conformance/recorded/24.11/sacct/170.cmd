run
sacct -j 999999
