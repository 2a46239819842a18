# bad-cpus: NodeName line with CPUs=abc
sinfo
