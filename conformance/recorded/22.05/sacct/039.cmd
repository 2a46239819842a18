run
sacct -j $Y
