# bad-maxtime: partition with MaxTime=abc
/usr/sbin/slurmctld -D
