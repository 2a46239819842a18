run
scontrol top $J4
