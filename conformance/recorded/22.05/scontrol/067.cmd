run
scontrol show job $S2 | grep -E '(^| )TimeLimit='
