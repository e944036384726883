import base64, json, sys

print(json.loads(base64.b64decode(sys.argv[1])))
