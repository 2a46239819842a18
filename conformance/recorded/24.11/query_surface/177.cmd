run
SCANCEL_NAME=nosuch scancel
