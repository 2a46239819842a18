run
sinfo -N -O NodeList,NodeList
