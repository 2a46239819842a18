run
sinfo -N -O NodeList,Extra
