run
scontrol update jobid=${A}_[8-9] TimeLimit=5
