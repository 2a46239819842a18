run
sinfo -N -O NodeList,TimeStamp
