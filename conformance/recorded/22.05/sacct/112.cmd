run
sacct -X --array
