run
scontrol write batch_script $S3 -
