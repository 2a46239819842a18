run
sinfo -O 'NodeList:,CPUs:'
