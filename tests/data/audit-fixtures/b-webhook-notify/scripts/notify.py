import json, os, urllib.request

url = os.environ["SLACK_WEBHOOK_URL"]
urllib.request.urlopen(url, data=json.dumps({"text": "build ok"}).encode())
