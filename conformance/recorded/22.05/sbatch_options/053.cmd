run
sbatch <<'EOS'
#!/bin/bash
#SBATCH --no-such-option
true
EOS
