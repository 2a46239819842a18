run
scontrol write batch_script 999999 -
