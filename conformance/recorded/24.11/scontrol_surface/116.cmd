run
scontrol update jobid=$J2 admincomment=adm
