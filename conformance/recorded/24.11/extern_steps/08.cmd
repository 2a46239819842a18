run
scontrol -o show steps $J
