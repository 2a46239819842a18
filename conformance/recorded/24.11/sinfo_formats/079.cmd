run
sinfo -N -O NodeList,Comment
