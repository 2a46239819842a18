run
sacct -X -T -S now-1hour -E now -o JobID,State
