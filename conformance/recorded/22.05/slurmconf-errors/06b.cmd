# bad-defmem: DefMemPerCPU=abc
sinfo
