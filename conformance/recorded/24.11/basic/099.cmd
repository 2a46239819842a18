run capture=J8
sbatch --parsable -J trap -o trap-%j.out <<'EOF'
#!/bin/bash
trap 'echo got USR1' USR1
echo started
for i in $(seq 300); do sleep 1; done
EOF
