run
scancel -p debug -n nosuch -t PD
