run
sinfo -N -O NodeList,OverSubscribe
