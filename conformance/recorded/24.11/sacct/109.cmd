run
sacct -p -X
