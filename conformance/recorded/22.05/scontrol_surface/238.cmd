run as=spurtest
scontrol setdebug info
