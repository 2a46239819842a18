run
sinfo -N -O NodeList,Threads
