run
scontrol cancel $B
