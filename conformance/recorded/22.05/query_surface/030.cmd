run
squeue --clusters=spur -h -o '%i %j'
