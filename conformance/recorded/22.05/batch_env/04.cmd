run capture=E2
sbatch --parsable <<'EOF'
#!/bin/bash
#SBATCH -J fullenv
#SBATCH -o fullenv-%j.out
env | sort
EOF
