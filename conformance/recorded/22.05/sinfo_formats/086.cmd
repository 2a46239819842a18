run
sinfo -N -O NodeList,Features
