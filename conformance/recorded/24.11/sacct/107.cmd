run
sacct -P
