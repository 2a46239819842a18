# bad-maxtime: partition with MaxTime=abc
sinfo
