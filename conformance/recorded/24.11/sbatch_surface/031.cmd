run
cat > pbs4.sh <<'EOS'
#!/bin/bash
#PBS -h
#PBS -t 1-3
#PBS -W depend=afterany:1
#PBS -W umask=077
#PBS -W other=thing
#PBS -l nodes=2,ncpus=1
#PBS -a 2029-01-01T12:00
echo pbs4
echo not a comment
#PBS -N stillread
EOS
