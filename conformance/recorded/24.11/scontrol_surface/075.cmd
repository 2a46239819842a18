run
printf 'version\nexit\n' | scontrol
