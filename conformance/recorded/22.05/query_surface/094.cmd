run
sinfo -i abc
