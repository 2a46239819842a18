run
sinfo -N -O NodeList,Sockets
