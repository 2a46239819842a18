run
sinfo -N -O NodeList,AllocNodes
