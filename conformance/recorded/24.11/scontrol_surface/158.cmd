run as=spurtest
scontrol top $J4
