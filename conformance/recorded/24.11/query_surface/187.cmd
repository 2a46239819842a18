run
SCANCEL_VERBOSE=maybe scancel -n nosuch
