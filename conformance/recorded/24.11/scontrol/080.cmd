run
scontrol update JobId=$S2 WorkDir=/tmp
