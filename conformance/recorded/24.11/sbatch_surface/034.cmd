run
cat > pbs9.sh <<'EOS'
#!/bin/bash
#PBS -a 202901011200
echo pbs9
EOS
