run
sinfo --clusters=spur -h
