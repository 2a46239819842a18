run
sinfo -O 'Partition:5,NodeList:.20,StateCompact:.8'
