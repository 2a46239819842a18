run
scontrol show job $J | grep -E 'JobState|ExitCode'
