run
sinfo -N -O NodeList,Cluster
