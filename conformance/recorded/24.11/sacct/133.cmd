run
sacct -X -S 2020-01-01
