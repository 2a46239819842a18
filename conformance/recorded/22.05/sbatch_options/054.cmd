run
sbatch <<'EOS'
#!/bin/bash
#SBATCH -t abc
true
EOS
