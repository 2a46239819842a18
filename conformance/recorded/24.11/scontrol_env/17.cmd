run
rm -f /tmp/spur-conf-written.conf.* /tmp/spur-conf-written2.conf.*
