run
sinfo -N -O NodeList,MaxCPUsPerNode
