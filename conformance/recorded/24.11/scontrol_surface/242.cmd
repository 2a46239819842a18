run as=spurtest
scontrol takeover
