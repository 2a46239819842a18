run
scontrol < /dev/null
