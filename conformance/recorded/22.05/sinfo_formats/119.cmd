run
sinfo -N -O NodeList,Version
