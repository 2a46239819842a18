run
scontrol hold jobname=arr
