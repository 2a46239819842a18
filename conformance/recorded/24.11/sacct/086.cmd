run
sacct -X --parsable2 --noheader --format=JobIdRaw,State --name ok_job
