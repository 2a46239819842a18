run
scontrol update jobid=${A}_9 TimeLimit=5
