run
sacct --brief -X
