def echo(message):
    print(message)
