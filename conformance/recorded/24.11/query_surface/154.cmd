run
scancel --me -n nosuch
