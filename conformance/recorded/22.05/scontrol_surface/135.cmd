run
scontrol update jobid=$J2 clusterfeatures=x
