run capture=B
sbatch --parsable -N2 -n4 -o batch-%j.out <<'EOF'
#!/bin/bash
# a step's CPUs are free only once slurmctld has ended it, a moment after srun returns:
# wait for that, or the next srun may have to wait ("Step created for StepId=8.4")
gone() { while squeue -h -s -j $SLURM_JOB_ID -o %i | grep -qx "$SLURM_JOB_ID.$1"; do sleep 0.1; done; }
env | sort > b0-shell.txt
srun -l env | sort > b1-default.txt; gone 0
srun -n1 -l env | sort > b2-n1.txt; gone 1
srun -N2 -n3 -l env | sort > b3-N2n3.txt; gone 2
srun -c2 -n2 -l env | sort > b4-c2.txt; gone 3
srun --ntasks-per-node=1 -l env | sort > b5-tpn1.txt; gone 4
srun --distribution=cyclic -l env | sort > b6-cyclic.txt; gone 5
srun -N1 -l env | sort > b7-N1.txt
echo done
EOF
