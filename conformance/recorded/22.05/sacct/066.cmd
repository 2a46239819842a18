run
sacct -X -j $C -o jobid,jobname%5,state%2
