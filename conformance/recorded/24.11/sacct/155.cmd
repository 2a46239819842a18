run
sacct -X -M spur
