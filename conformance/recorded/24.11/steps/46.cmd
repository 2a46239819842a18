run
touch release
