run
scontrol show reservation f1
