run
sacct -X -E now
