run
sacct -X -u root
