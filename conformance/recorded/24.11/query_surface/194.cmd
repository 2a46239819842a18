run
SCANCEL_HURRY=1 scancel -n nosuch -v
