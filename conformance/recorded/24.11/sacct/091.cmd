run
sacct -X --parsable2 --noheader --format=JobIdRaw,State --name arr_job
