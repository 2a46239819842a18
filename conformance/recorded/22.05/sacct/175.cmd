run
sacct --usage
