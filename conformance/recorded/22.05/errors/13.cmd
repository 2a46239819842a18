run
sbatch /nonexistent/job.sh
