run
sacct -X --name ok_job
