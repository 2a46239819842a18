run
sacct -e
