run
scontrol release ${A}_5
