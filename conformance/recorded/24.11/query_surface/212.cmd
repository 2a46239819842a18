run
scancel -p debug -t PD --me -v
