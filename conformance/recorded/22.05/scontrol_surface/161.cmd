run
scontrol top 999999
