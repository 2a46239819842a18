run
sacct -X -s PD -S 2020-01-01 -E now
