run
scontrol update JobId=$S2 TimeLimit=abc
