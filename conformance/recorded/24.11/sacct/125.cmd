run
sacct -X -s R -S 2020-01-01 -E now
