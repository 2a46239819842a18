run
sinfo -O 'NodeList:10,StateLong:.12,CPUs:4'
