run
SCANCEL_USER=nosuchuser scancel
