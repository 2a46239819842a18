run
sinfo -N -O NodeList,GresUsed
