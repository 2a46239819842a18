run
SCANCEL_WCKEY=nosuch scancel
