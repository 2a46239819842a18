run
sacct -X --user=nosuchuser
