run capture=J
sbatch --parsable -N2 -n4 -J stepper -o steps-%j.out <<'EOF'
#!/bin/bash
# a step's CPUs are free again only when slurmctld has ended it, a moment after srun
# returns: wait for that, or the next srun may have to wait (22.05 says so at once)
gone() { while squeue -h -s -j $SLURM_JOB_ID -o %i | grep -qx "$SLURM_JOB_ID.$1"; do sleep 0.1; done; }
srun -l printenv SLURM_STEP_ID | sort
gone 0
srun -N1 -n1 true
gone 1
srun -n4 sh -c 'touch started.$SLURM_PROCID; exec sleep 300' 2> sleep.err
echo "sleep step rc=$?"
until [ -e release ]; do sleep 0.2; done
echo end
EOF
