run
scontrol release ${A}_3
