run
sinfo -N -O NodeList,StateComplete
