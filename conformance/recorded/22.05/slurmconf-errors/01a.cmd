# unknown-key: append an unknown key 'FooBarBaz=1'
/usr/sbin/slurmctld -D
