run
scontrol -o show job $W1 | tr ' ' '\n' | grep -E '^(JobId|JobName|JobState|Reason|ExitCode|NodeList|BatchHost|NumCPUs|TimeLimit|Partition|StdOut|WorkDir)='
