run
scontrol show job $A9 | grep -E '(^| )Dependency='
