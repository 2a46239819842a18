run
sinfo --noconvert -O NodeList,Memory,AllocMem
