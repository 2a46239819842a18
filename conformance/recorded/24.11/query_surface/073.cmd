run
SQUEUE_USERS=spurtest squeue -h -o '%i %u'
