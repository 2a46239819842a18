run
sacct -X -s R
