run
scontrol release jobname=nosuchname
