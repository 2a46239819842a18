run
sacct -X -S midnight
