run
mkdir -p sub && chmod 777 sub
