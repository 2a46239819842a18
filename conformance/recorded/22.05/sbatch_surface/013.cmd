run
sbatch -v --hold --export=NONE --open-mode=append -e v-%j.err -i /dev/null --gres=gpu:1 --wrap true
