run
sinfo -N -O NodeList,Cores
