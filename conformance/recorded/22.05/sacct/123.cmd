run
sacct -X -s TO -S 2020-01-01 -E now
