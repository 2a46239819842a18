run
scontrol show step 999999
