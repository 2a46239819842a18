run
SCANCEL_USER=nobody scancel -v
