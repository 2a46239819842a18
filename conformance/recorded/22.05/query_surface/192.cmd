run
SCANCEL_INTERACTIVE=false scancel -n nosuch -v
