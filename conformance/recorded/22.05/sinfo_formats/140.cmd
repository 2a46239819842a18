run
sinfo -n node9
