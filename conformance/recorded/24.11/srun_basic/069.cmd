run
ls -1 all-*
