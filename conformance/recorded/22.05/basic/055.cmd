run
scontrol show job ${J6}_2
