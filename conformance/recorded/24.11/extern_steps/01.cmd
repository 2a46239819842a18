run capture=J
sbatch --parsable -N2 -J ext -o ext-%j.out <<'EOF2'
#!/bin/bash
srun -l true
touch started
until [ -e release ]; do sleep 0.2; done
echo end
EOF2
