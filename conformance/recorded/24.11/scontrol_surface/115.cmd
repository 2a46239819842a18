run
scontrol update jobid=$J2 mailtype=END mailuser=x@example.com
