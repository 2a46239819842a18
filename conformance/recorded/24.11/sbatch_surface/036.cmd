run
cat > pbs5.sh <<'EOS'
#!/bin/bash
#PBS -h
#PBS -N name1 extra
echo pbs5
EOS
