run
sacct -X
