run
ls -1 pat-*
