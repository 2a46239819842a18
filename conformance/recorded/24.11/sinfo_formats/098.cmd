run
sinfo -N -O NodeList,Nodes
