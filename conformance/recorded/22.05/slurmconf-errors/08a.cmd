# bad-selecttype: SelectType=select/nosuch
/usr/sbin/slurmctld -D
