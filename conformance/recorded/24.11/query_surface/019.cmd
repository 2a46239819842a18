run as=spurtest
squeue --me -o '%i %j %u'
