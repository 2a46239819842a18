run
scontrol update jobid=${A}_2 TimeLimit=5
