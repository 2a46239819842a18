run
SCANCEL_VERBOSE=true scancel -n nosuch
