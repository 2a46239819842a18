run
sacct -X -u spurtest
