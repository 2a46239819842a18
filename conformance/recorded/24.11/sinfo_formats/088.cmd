run
sinfo -N -O NodeList,Gres
