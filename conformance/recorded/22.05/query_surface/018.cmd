run
squeue --me -o '%i %j %u'
