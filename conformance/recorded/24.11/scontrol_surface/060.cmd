run
scontrol help show
