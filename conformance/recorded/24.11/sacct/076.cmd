run
sacct -X --noheader --format=jobid,state%20 --job $R
