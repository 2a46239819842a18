run
scontrol --hel
