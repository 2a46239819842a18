run
scontrol update jobid=$J1 mincpusnode=2
