run
sacct -X --accounts=root
