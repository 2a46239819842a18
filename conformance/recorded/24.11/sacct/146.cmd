run
sacct -X --partition=nosuch
