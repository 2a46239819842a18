run as=spurtest
scontrol release jobname=arr
