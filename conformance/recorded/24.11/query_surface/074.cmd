run
SQUEUE_USERS=nosuchuser squeue -h -o '%i %u'
