run
scancel $S3 $S6
