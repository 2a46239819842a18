run
sinfo -N -O NodeList,StateCompact
