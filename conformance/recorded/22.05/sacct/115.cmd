run
sacct --helpformat
