import json, urllib.request

HOOK = "https://hooks.slack.com/services/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"
urllib.request.urlopen(HOOK, data=json.dumps({'text': 'done'}).encode())
