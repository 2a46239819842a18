run
sacct -X -s PD
