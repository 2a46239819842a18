run
sacct -X -A research
