run
scontrol update jobid=${A}_[1,5-6] TimeLimit=20
