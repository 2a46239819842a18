run
sinfo -N -O NodeList,UserLong
