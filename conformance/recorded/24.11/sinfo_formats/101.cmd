run
sinfo -N -O NodeList,PartitionName
