run
scontrol update jobid=$J2 stderr=/tmp/spur-conf-work/x.err
