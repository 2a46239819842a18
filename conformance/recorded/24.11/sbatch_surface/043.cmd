run
cat > pbs8.sh <<'EOS'
#!/bin/bash
#PBS -h
#PBS -l select=2:ncpus=2:mpiprocs=1
#PBS -v FOO=bar,BAZ
echo pbs8
EOS
