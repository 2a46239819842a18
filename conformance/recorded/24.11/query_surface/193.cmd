run
SCANCEL_INTERACTIVE=x scancel -n nosuch
