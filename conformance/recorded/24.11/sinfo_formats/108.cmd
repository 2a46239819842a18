run
sinfo -N -O NodeList,Size
