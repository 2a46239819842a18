run
sinfo -N -O NodeList,Memory
