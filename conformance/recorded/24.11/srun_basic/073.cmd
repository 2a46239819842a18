run
sort tasks-*
