run
SCANCEL_FULL=x scancel -n nosuch
