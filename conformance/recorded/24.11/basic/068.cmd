run
ls -1
