run
sinfo -N -O NodeList,Root
