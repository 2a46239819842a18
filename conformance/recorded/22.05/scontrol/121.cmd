run
scontrol show job $S5 | grep -E '(^| )JobState='
