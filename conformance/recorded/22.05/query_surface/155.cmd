run
scancel --ctld -n nosuch
