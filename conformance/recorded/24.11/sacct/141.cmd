run
sacct -X --name nosuch
