run
sinfo -N -O NodeList,Disk
