run
scontrol -o show job ${A}_2
