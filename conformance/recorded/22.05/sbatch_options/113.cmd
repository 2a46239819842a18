file
app.out
