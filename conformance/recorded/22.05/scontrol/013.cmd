run
scontrol -d show job $S1
