file
blocked.rc
