run
sacct -X -s CD -S 2020-01-01 -E now
