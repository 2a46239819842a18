run
sacct -X -q normal
