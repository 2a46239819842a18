run
sacct -b
