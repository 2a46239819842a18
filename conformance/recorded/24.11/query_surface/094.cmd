run
sinfo --noconvert -o '%N %m'
