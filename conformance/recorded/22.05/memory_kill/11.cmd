run capture=K
sbatch --parsable --mem=200 -o step-%j.out <<'EOF2'
#!/bin/bash
srun --mem=50 perl -e '$x = "1" x 157286400; sleep 60'
echo srun=$?
EOF2
