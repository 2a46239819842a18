run
sinfo -N -O NodeList,DefaultTime
