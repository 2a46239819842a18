run
sacct -X -g spurtest
