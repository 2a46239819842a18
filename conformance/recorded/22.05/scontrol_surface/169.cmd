run
scontrol wait_job 999999
