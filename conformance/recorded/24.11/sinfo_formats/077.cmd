run
sinfo -N -O NodeList,Available
