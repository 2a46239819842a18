run
sacct -S garbage
