run as=spurtest
scontrol -o show job $J3
