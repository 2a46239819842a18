run
SCANCEL_ACCOUNT=nosuch scancel -v
