run
scontrol update jobid=$J2 reqthreads=1
