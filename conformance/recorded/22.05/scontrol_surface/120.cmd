run
scontrol update jobid=$J2 gres=gpu:1
