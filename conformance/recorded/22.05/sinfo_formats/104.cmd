run
sinfo -N -O NodeList,PriorityTier
