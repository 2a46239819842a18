run
sacct -X -r debug
