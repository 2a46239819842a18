run
scontrol -o show job $W1 | tr ' ' '\n' | grep -E '^(JobId|JobState|Reason|ExitCode|DerivedExitCode|RunTime)='
