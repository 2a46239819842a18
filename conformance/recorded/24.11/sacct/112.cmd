run
sacct -n -X
