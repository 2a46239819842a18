run capture=Q
sbatch --parsable -J rq_job -w node4 --wrap 'if [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then sleep 600; fi; echo run ${SLURM_RESTART_COUNT:-0}'
