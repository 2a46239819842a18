run
sinfo -N -O NodeList,Reason
