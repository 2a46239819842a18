run
SCANCEL_FULL=true scancel -n nosuch -v
