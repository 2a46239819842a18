# no-equals: a line that is not key=value ('JustAWord')
/usr/sbin/slurmctld -D
