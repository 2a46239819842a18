run
sacct -X -S now-1hour
