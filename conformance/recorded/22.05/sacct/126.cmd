run
sacct -X -s RQ -S 2020-01-01 -E now
