run
SCANCEL_CTLD=1 scancel -n nosuch -v
