run
scancel ${J6}_2
