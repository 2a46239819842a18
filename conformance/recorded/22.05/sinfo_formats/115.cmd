run
sinfo -N -O NodeList,Time
