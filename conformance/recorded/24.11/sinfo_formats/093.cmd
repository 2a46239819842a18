run
sinfo -N -O NodeList,NodeAddr
