run
sacct --delimiter=: -X
