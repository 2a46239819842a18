run
scontrol write batch_script $S2 -
