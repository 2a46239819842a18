run
SCANCEL_QOS=nosuch scancel
