run
sacct -X --uid=1500
