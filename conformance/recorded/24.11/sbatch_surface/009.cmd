run
cat > verb.sh <<'EOS'
#!/bin/bash
#SBATCH -J verbscript
#SBATCH --time=10
#SBATCH --hold
echo "$@"
EOS
