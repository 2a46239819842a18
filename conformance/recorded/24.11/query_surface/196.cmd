run
SCANCEL_CRON=1 scancel -n nosuch -v
