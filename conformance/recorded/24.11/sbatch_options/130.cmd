run
scontrol show job $B5 | grep -E '(^| )Deadline='
