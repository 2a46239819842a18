run
scontrol update jobid=$J2 licenses=foo:1
