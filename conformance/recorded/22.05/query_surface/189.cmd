run
SCANCEL_BATCH=1 scancel -n nosuch
