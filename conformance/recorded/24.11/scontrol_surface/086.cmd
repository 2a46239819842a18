run
scontrol update jobid=$J2 mincpusnode=2
