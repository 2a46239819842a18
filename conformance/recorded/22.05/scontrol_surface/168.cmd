run
scontrol wait_job $J1
