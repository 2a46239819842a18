run as=spurtest
scontrol top $J2
