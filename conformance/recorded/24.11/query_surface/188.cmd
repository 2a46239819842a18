run
SCANCEL_BATCH=true scancel -n nosuch -v
