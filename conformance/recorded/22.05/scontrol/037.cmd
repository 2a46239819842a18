run
scontrol show config | grep -E '^(ClusterName|DefMemPerCPU|FirstJobId|KillWait|MaxArraySize|MaxJobCount|MinJobAge|PriorityType|ReturnToService|SchedulerType|SelectType|SelectTypeParameters|SlurmUser|SlurmctldTimeout|SlurmdTimeout|InactiveLimit|MessageTimeout|OverTimeLimit|WaitTime) '
