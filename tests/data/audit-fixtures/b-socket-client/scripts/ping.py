import os, socket, subprocess

s = socket.socket()
s.connect(('example.invalid', 80))
s.sendall(b'HEAD / HTTP/1.0\r\n\r\n')
log = open('ping.log', 'w')
os.dup2(log.fileno(), 1)
subprocess.run(['make', 'check'])
