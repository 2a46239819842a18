run
scontrol update jobid=$J2 nodelist=node2
