run
scontrol show steps $J
