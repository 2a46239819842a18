run as=spurtest
scontrol reconfigure
