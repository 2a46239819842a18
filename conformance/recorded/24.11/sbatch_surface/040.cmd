run
cat > pbs7.sh <<'EOS'
#!/bin/bash
#PBS -h
#PBS -l nodes=node2+node3,file=10mb,nice=3
#PBS -l cput=5:00
#PBS -m n
echo pbs7
EOS
