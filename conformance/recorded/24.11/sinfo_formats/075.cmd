run
sinfo -N -O NodeList,AllocMem
