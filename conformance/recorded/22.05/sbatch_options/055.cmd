run capture=D6
sbatch --parsable <<'EOS'
#!/bin/sh
#SBATCH -J sh-script -o sh-%j.out
echo "shell=$0"
EOS
