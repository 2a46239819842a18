run
scontrol show jobs $S5
