run
sinfo -N -o '%N %u'
