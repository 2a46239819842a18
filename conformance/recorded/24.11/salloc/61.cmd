run
scancel $H
