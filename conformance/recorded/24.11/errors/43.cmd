run
scancel abc
