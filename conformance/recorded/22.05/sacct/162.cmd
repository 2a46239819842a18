run as=spurtest
sacct -X -u root
