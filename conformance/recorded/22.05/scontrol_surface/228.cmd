run
scontrol show dwstat
