run
sbatch -v --parsable -p debug -A acct --qos=normal --nice=5 --array=1-3 --dependency=afterok:1 verb.sh
