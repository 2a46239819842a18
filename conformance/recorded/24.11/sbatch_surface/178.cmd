run
printf 'FOO=fromfile\n' > env.txt
