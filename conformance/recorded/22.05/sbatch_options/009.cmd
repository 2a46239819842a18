run capture=A1
sbatch --parsable --hold -J many -t 1:30:00 --time-min=20 -N 2 -n 3 -c 1 --mem-per-cpu=300 \
  --comment='the comment' --nice=7 --no-requeue --mail-type=END,FAIL --mail-user=nobody@example.com \
  --signal=USR1@60 -x node1 --contiguous -o many-%j.out -e many-%j.err -i /dev/null --open-mode=append \
  --kill-on-invalid-dep=yes --tmp=100 --mincpus=1 --wrap 'echo many'
