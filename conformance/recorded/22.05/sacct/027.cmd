run capture=M
sbatch --parsable -J multi_job -N1 -n2 <<'EOS'
#!/bin/bash
srun -n1 -J first true
srun -n2 -J second bash -c 'exit 4'
echo end
EOS
