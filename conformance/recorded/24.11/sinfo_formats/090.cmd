run
sinfo -N -O NodeList,Groups
