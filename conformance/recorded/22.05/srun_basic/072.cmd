run
ls -1 tasks-*
