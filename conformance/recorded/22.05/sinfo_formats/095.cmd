run
sinfo -N -O NodeList,NodeAIOT
