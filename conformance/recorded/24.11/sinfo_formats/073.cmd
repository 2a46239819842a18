run
sinfo -o '%P %T %E %u'
