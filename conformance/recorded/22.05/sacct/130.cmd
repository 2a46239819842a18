run
sacct -X -s CD -S midnight
