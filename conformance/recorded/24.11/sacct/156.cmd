run
sacct -X -L
