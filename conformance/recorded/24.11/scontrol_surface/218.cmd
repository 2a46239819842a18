run
scontrol uhold job=$A
