run
scontrol show job $W1 | grep -oE 'JobState=[A-Z]+'
