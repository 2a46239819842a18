run
sacct -X -s F -S 2020-01-01 -E now
