run
scontrol update jobid=${A}_[3-4] Comment=two
