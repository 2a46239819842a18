run
scontrol show steps $J2
