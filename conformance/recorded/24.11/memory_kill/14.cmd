run
scontrol show job $K | grep -E 'JobState|ExitCode'
