# bad-defmem: DefMemPerCPU=abc
/usr/sbin/slurmctld -D
