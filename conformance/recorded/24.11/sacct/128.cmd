run
sacct -X --state=cancelled,timeout,requeued -S 2020-01-01 -E now
