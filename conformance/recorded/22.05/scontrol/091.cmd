run
scontrol update JobId=$S2 Bogus=1
