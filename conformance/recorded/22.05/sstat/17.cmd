run
sstat --noheader --parsable2 --format=JobID,NTasks --jobs=$J.0
