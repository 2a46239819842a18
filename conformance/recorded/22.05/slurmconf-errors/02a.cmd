# bad-cpus: NodeName line with CPUs=abc
/usr/sbin/slurmctld -D
