run
squeue --notme -h -o '%i %u'
