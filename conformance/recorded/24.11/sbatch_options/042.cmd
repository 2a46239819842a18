run
cat > prec.sh <<'EOS'
#!/bin/bash
#SBATCH -J fromscript
#SBATCH --time=7
#SBATCH --comment=script
#SBATCH --output=prec-%j.out
# SBATCH --nice=99
#SBATCH --hold
echo "args=$#" "$@"
#SBATCH --job-name=too-late
EOS
