run
scontrol release jobname=arr
