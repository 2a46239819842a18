run
cat > pbs1.sh <<'EOS'
#!/bin/bash
#PBS -N pbsname
#PBS -l nodes=3:ppn=2,mem=1024mb,walltime=1:00:00
#PBS -q debug
#PBS -o pbs-out.txt
#PBS -e pbs-err.txt
#PBS -j oe
#PBS -m abe
#PBS -M someone@example.com
#PBS -V
#PBS -A pbsacct
#PBS -h
#PBS -p 10
echo pbs
EOS
