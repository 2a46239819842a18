run
sacct -X -s CA -S 2020-01-01 -E now
