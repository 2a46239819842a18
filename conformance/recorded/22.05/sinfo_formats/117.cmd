run
sinfo -N -O NodeList,User
