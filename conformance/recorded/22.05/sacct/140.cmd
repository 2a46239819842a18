run
sacct -X --name=ok_job,fail_job
