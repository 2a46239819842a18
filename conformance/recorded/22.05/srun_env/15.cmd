run capture=B
sbatch --parsable -N2 -n4 -o batch-%j.out <<'EOF'
#!/bin/bash
env | sort > b0-shell.txt
srun -l env | sort > b1-default.txt
srun -n1 -l env | sort > b2-n1.txt
srun -N2 -n3 -l env | sort > b3-N2n3.txt
srun -c2 -n2 -l env | sort > b4-c2.txt
srun --ntasks-per-node=1 -l env | sort > b5-tpn1.txt
srun --distribution=cyclic -l env | sort > b6-cyclic.txt
srun -N1 -l env | sort > b7-N1.txt
echo done
EOF
