run
scontrol -Q show job 999999
