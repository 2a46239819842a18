run
scontrol listjobs
