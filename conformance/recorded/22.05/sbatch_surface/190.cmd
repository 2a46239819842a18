run
scontrol show job $S1 | grep -E '(^| )Command='
