run
sinfo -N -O NodeList,NodeHost
