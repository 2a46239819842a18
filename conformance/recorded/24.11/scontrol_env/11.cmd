run
scontrol write config /tmp/spur-conf-written2.conf
