run
scontrol show job abc
