run
sacct -o NoSuchField
