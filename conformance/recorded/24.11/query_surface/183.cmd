run
SCANCEL_STATE=bogus scancel -n nosuch
