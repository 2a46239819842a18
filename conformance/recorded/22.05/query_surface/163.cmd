run
scancel --cron -n nosuch -v
