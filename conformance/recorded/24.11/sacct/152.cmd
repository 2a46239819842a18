run
sacct -X --allusers
