run
sacct --jobs=$C --jobs=$F
