run
sinfo -N -O NodeList,Weight
