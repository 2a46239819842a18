run
cat > pbs6.sh <<'EOS'
#!/bin/bash
#PBS -h
#PBS -Z
echo pbs6
EOS
