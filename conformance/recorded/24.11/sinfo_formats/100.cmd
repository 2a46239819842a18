run
sinfo -N -O NodeList,Partition
