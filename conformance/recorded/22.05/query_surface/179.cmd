run
SCANCEL_PARTITION=nosuch scancel
