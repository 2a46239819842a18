run as=spurtest
scontrol shutdown
