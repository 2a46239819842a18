# bad-state: partition State=SIDEWAYS
/usr/sbin/slurmctld -D
