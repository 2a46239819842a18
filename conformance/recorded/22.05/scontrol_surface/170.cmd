run
scontrol wait_job
