run
sinfo -N -O NodeList,CPUs
