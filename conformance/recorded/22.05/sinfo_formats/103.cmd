run
sinfo -N -O NodeList,PriorityJobFactor
