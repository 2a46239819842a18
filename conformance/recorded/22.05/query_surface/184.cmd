run
SCANCEL_STATE=RUNNING scancel -n nosuch -v
