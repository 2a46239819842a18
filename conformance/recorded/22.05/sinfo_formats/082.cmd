run
sinfo -N -O NodeList,CPUsState
