run
scontrol show daemons
