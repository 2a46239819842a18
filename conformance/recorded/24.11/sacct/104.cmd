run
sacct
