run
SCANCEL_NAME=nosuch scancel -n gamma -v
